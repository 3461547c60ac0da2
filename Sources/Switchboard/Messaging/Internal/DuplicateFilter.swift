import DequeModule

/// Remembers the ids dispatched within a ``DuplicateWindow`` and refuses them a second time.
///
/// A value type with no clock of its own: the owner passes the current time (as time elapsed
/// since the owner started), so the window is tested with plain numbers.
struct DuplicateFilter: Sendable {
    let window: DuplicateWindow
    private var order: Deque<(id: MessageID, at: Duration)> = []
    private var seen: Set<MessageID> = []

    init(window: DuplicateWindow) {
        self.window = window
    }

    /// How many ids are remembered now.
    var rememberedCount: Int { order.count }

    /// Whether the window needs the time at all.
    var needsTime: Bool { window.isEnabled && window.duration != nil }

    /// Records `id` at `now` and returns `true`, or returns `false` when `id` was recorded within
    /// the window (a duplicate; the window is not extended by it).
    mutating func admit(_ id: MessageID, at now: Duration) -> Bool {
        guard window.isEnabled else { return true }
        expire(at: now)
        if seen.contains(id) { return false }
        order.append((id, now))
        seen.insert(id)
        if let count = window.count {
            while order.count > count { forgetOldest() }
        }
        return true
    }

    private mutating func expire(at now: Duration) {
        guard let duration = window.duration else { return }
        while let oldest = order.first, now - oldest.at >= duration { forgetOldest() }
    }

    private mutating func forgetOldest() {
        guard let oldest = order.popFirst() else { return }
        seen.remove(oldest.id)
    }
}
