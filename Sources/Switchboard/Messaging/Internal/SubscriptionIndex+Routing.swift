import SocketIOProtocol

extension SubscriptionIndex {
    /// The subscribers `json` goes to, most recently added first, each once; subscriber objects
    /// that no longer exist are removed on the way.
    ///
    /// Cost: one key-path lookup per distinct key path in use, one hash lookup per path found,
    /// then work proportional to the number of matches — not to the number of subscribers.
    mutating func route(_ json: JSONValue) -> [DeliveryTarget] {
        // Usually one list matches (one order's subscribers, or only "everything"): it is walked
        // backwards in place. Several lists are merged, newest first, without repeats.
        var single: [UInt64]?
        var several: [[UInt64]] = []
        func take(_ numbers: SortedNumbers) {
            guard !numbers.isEmpty else { return }
            if several.isEmpty, single == nil {
                single = numbers.numbers
            } else {
                if let first = single {
                    several.append(first)
                    single = nil
                }
                several.append(numbers.numbers)
            }
        }
        take(everything)
        for (keyPath, route) in routes {
            guard let found = keyPath.value(in: json) else { continue }
            if !found.isNull { take(route.present) }
            if let numbers = route.byValue[found] { take(numbers) }
        }
        var targets: [DeliveryTarget] = []
        var dead: [UInt64] = []
        if let single {
            targets.reserveCapacity(single.count)
            for number in single.reversed() { resolve(number, into: &targets, dead: &dead) }
        } else if !several.isEmpty {
            let numbers = Self.newestFirst(several)
            targets.reserveCapacity(numbers.count)
            for number in numbers { resolve(number, into: &targets, dead: &dead) }
        }
        for number in dead { remove(number) }
        return targets
    }

    private func resolve(_ number: UInt64, into targets: inout [DeliveryTarget], dead: inout [UInt64]) {
        guard let entry = entries[number] else { return }
        switch entry.receiver {
        case .object(let weak):
            guard let object = weak.object else {
                dead.append(number)
                return
            }
            targets.append(DeliveryTarget(number: number, receiver: .object(object)))
        case .closure(let handler):
            targets.append(DeliveryTarget(number: number, receiver: .closure(handler)))
        case .stream(let continuation):
            targets.append(DeliveryTarget(number: number, receiver: .stream(continuation)))
        }
    }

    /// Merges ascending lists into one descending list without repeats.
    static func newestFirst(_ lists: [[UInt64]]) -> [UInt64] {
        switch lists.count {
        case 0:
            return []
        case 1:
            return lists[0].reversed()
        default:
            var merged = lists.flatMap { $0 }
            merged.sort(by: >)
            var unique: [UInt64] = []
            unique.reserveCapacity(merged.count)
            for number in merged where unique.last != number { unique.append(number) }
            return unique
        }
    }
}
