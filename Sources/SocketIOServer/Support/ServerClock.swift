/// The injected clock, reduced to what the server needs: elapsed time and sleeping.
///
/// `any Clock<Duration>` has an opaque `Instant`; opening it once here gives every other part
/// of the server a plain `Duration` timeline (time since the server was made), so deadlines
/// can be stored and compared without generics.
struct ServerClock: Sendable {
    let now: @Sendable () -> Duration
    let sleep: @Sendable (Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
        self = Self.opening(clock)
    }

    private init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    private static func opening<C: Clock<Duration>>(_ clock: C) -> ServerClock {
        let start = clock.now
        return ServerClock(
            now: { start.duration(to: clock.now) },
            sleep: { try await clock.sleep(for: $0) }
        )
    }
}
