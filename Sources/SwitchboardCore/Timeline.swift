/// An injected clock reduced to what its users need: time elapsed since the timeline was made,
/// and sleeping.
///
/// `any Clock<Duration>` has an opaque `Instant`; opening it once here gives every user a plain
/// `Duration` timeline, so deadlines can be stored and compared without generics, and tests move
/// time by hand with a test clock.
package struct Timeline: Sendable {
    /// Time since the timeline was made.
    package let now: @Sendable () -> Duration
    /// Sleeps on the clock (throws `CancellationError` when the task is cancelled).
    package let sleep: @Sendable (Duration) async throws -> Void

    /// A timeline starting now on `clock`.
    package init(_ clock: any Clock<Duration>) {
        self = Self.opening(clock)
    }

    private init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    private static func opening<C: Clock<Duration>>(_ clock: C) -> Timeline {
        let start = clock.now
        return Timeline(
            now: { start.duration(to: clock.now) },
            sleep: { try await clock.sleep(for: $0) }
        )
    }
}
