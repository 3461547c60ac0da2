import DequeModule

/// The events one session was sent, kept for connection state recovery: each with its offset
/// (the string appended as the event's last argument) and its encoded frames.
///
/// Bounded twice: at most `maxEntries`, and none older than `maxAge` — except the newest, so a
/// client that was idle longer than `maxAge` can still prove it missed nothing.
struct PacketLog: Sendable {
    struct Entry: Sendable {
        var offset: String
        var frames: [EngineFrame]
        var time: Duration
    }

    let maxEntries: Int
    let maxAge: Duration
    private(set) var entries: Deque<Entry> = []
    /// Whether an entry was ever dropped (the log no longer holds every event sent).
    private(set) var dropped = false

    init(maxEntries: Int, maxAge: Duration) {
        self.maxEntries = max(1, maxEntries)
        self.maxAge = maxAge
    }

    mutating func append(offset: String, frames: [EngineFrame], now: Duration) {
        entries.append(Entry(offset: offset, frames: frames, time: now))
        while entries.count > maxEntries { dropFirst() }
        while entries.count > 1, let first = entries.first, now - first.time > maxAge { dropFirst() }
    }

    private mutating func dropFirst() {
        entries.removeFirst()
        dropped = true
    }

    /// Puts `earlier` before everything logged so far (a recovered session's replay, which
    /// goes out before what was held for it meanwhile).
    mutating func prepend(_ earlier: [(offset: String, frames: [EngineFrame])], now: Duration) {
        guard !earlier.isEmpty else { return }
        entries = Deque(earlier.map { Entry(offset: $0.offset, frames: $0.frames, time: now) }) + entries
        while entries.count > maxEntries { dropFirst() }
    }

    /// The frames of every event after `offset`, in order (every event's without an offset: a
    /// client that kept none); `nil` when the log no longer reaches back that far (`offset`
    /// unknown or dropped, or without an offset any entry dropped), which means the session
    /// cannot be recovered.
    func frames(after offset: String?) -> [EngineFrame]? {
        guard let offset else { return dropped ? nil : entries.flatMap(\.frames) }
        guard let index = entries.lastIndex(where: { $0.offset == offset }) else { return nil }
        return entries[(index + 1)...].flatMap(\.frames)
    }
}
