/// Subscriber numbers in ascending order, without repeats.
///
/// Numbers grow with each new subscriber, so inserting is usually an append; a subscriber that
/// adds a condition later takes a binary search and a shift.
struct SortedNumbers: Sendable, Hashable {
    private(set) var numbers: [UInt64] = []

    var isEmpty: Bool { numbers.isEmpty }
    var count: Int { numbers.count }

    mutating func insert(_ number: UInt64) {
        if let last = numbers.last, last >= number {
            let position = firstPosition(notBelow: number)
            guard position == numbers.count || numbers[position] != number else { return }
            numbers.insert(number, at: position)
        } else {
            numbers.append(number)
        }
    }

    mutating func remove(_ number: UInt64) {
        let position = firstPosition(notBelow: number)
        guard position < numbers.count, numbers[position] == number else { return }
        numbers.remove(at: position)
    }

    private func firstPosition(notBelow number: UInt64) -> Int {
        var low = 0
        var high = numbers.count
        while low < high {
            let middle = (low + high) / 2
            if numbers[middle] < number { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
