/// Time elapsed since it was made, on an injected clock (so deadlines count from the call and
/// tests move time by hand).
struct Stopwatch: Sendable {
    let elapsed: @Sendable () -> Duration

    init(clock: any Clock<Duration>) {
        self = Self.start(clock)
    }

    private init(elapsed: @escaping @Sendable () -> Duration) {
        self.elapsed = elapsed
    }

    private static func start<C: Clock<Duration>>(_ clock: C) -> Stopwatch {
        let start = clock.now
        return Stopwatch { start.duration(to: clock.now) }
    }
}
