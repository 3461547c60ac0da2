/// The wait between tries of one operation that failed: short at first, doubling after each
/// failure up to a cap. No jitter: each is one process retrying its own link (a channel's
/// transport, the cluster's database), not a crowd of clients returning to one server (that is
/// the reconnection backoff's job).
package struct RetryDelay: Sendable {
    /// The wait before the next try.
    package private(set) var current: Duration
    /// The longest wait.
    package let cap: Duration

    /// Waits starting at `first` and doubling up to `cap`.
    package init(first: Duration = .milliseconds(50), cap: Duration) {
        self.current = min(first, cap)
        self.cap = cap
    }

    /// Whether the waits have grown to the cap.
    package var isCapped: Bool { current >= cap }

    /// The wait before the next try; the one after it is twice as long, up to ``cap``.
    package mutating func next() -> Duration {
        defer { current = min(current * 2, cap) }
        return current
    }
}
