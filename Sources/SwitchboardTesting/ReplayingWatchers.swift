/// The streams that follow one record: each gets the record so far when it joins (in the same
/// critical section, so nothing is lost or repeated between the two), then every new entry.
struct ReplayingWatchers<Element: Sendable>: Sendable {
    private var continuations: [UInt64: AsyncStream<Element>.Continuation] = [:]

    /// Adds stream `id`, after giving it `history`.
    mutating func add(_ id: UInt64, _ continuation: AsyncStream<Element>.Continuation, replaying history: [Element]) {
        for element in history { continuation.yield(element) }
        continuations[id] = continuation
    }

    /// Forgets stream `id` (nothing when it is not one of these).
    mutating func remove(_ id: UInt64) {
        continuations.removeValue(forKey: id)
    }

    /// Gives `element` to every stream.
    func yield(_ element: Element) {
        for continuation in continuations.values { continuation.yield(element) }
    }
}
