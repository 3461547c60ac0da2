package import NIOCore

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
    /// Runs an action after a delay unless the returned cancel runs first (a deadline).
    package let schedule: Scheduler

    /// Runs `action` after `delay`; returns what cancels it.
    package typealias Scheduler = @Sendable (_ delay: Duration, _ action: @escaping @Sendable () -> Void) -> @Sendable () -> Void

    /// A timeline starting now on `clock`. Deadlines run as tasks sleeping on the clock, unless
    /// `scheduler` is given and the clock is the real one (`ContinuousClock`): then it runs them
    /// (an event loop's timers: no task, no thread woken per deadline). A test clock always
    /// keeps its own sleeping, so tests move deadlines by hand.
    package init(_ clock: any Clock<Duration>, scheduler: Scheduler? = nil) {
        self = Self.opening(clock, scheduler: clock is ContinuousClock ? scheduler : nil)
    }

    /// A scheduler running deadlines as `eventLoop`'s timers.
    package static func eventLoopScheduler(_ eventLoop: any EventLoop) -> Scheduler {
        { delay, action in
            let scheduled = eventLoop.scheduleTask(in: TimeAmount(delay)) { action() }
            return { scheduled.cancel() }
        }
    }

    private init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void, schedule: @escaping Scheduler) {
        self.now = now
        self.sleep = sleep
        self.schedule = schedule
    }

    private static func opening<C: Clock<Duration>>(_ clock: C, scheduler: Scheduler?) -> Timeline {
        let start = clock.now
        let sleep: @Sendable (Duration) async throws -> Void = { try await clock.sleep(for: $0) }
        return Timeline(
            now: { start.duration(to: clock.now) },
            sleep: sleep,
            schedule: scheduler ?? { delay, action in
                let task = Task {
                    do {
                        try await sleep(delay)
                    } catch {
                        return  // cancelled
                    }
                    action()
                }
                return { task.cancel() }
            }
        )
    }
}
