import Foundation

/// A clock that moves only when the test says so; sleepers wake when it passes their deadline.
///
/// `@unchecked Sendable`: all mutable state is guarded by `lock`.
public final class ManualClock: Clock, @unchecked Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: Sleeper] = [:]
    private var waiters: [(ready: () -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    private var requested: [Duration] = []

    public init() {}

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    /// When each sleeping task wakes, as offsets from the clock's start, earliest first.
    public var sleeperDeadlines: [Duration] { lock.withLock { sleepers.values.map(\.deadline.offset).sorted() } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due: Bool = lock.withLock {
                    if deadline <= current || Task.isCancelled { return true }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    requested.append(current.duration(to: deadline))
                    return false
                }
                if !due { wakeWaiters() }
                if due {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = self.lock.withLock { self.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline passed.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            current = current.advanced(by: duration)
            let due = sleepers.filter { $0.value.deadline <= current }
            for key in due.keys { sleepers.removeValue(forKey: key) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Moves time forward WITHOUT waking anyone: what a process sees when it resumes after being
    /// suspended (its timers have not fired yet, but `now` has moved on).
    public func jump(by duration: Duration) {
        lock.withLock { current = current.advanced(by: duration) }
    }

    /// The durations every sleeper asked for, in the order they started sleeping.
    public var requestedSleeps: [Duration] { lock.withLock { requested } }

    /// Returns once at least `count` tasks sleep on the clock (so a test advances time only after
    /// the code under test scheduled its timer — no polling, no real sleeps).
    public func waitForSleepers(_ count: Int = 1) async {
        await waitUntil { $0.sleepers.count >= count }
    }

    /// Returns once a task sleeps until `offset` from the clock's start (a timer that may be
    /// cancelled before its task begins to sleep is awaited this way, not by counting sleeps).
    public func waitForSleeper(dueAt offset: Duration) async {
        await waitUntil { $0.sleepers.values.contains { $0.deadline.offset == offset } }
    }

    /// Returns the `occurrence`-th (1-based) sleep duration requested that satisfies `matching`,
    /// waiting until it has been requested.
    public func waitForSleep(_ occurrence: Int, matching: @escaping (Duration) -> Bool) async -> Duration {
        await waitUntil { $0.requested.filter(matching).count >= occurrence }
        return lock.withLock { requested.filter(matching)[occurrence - 1] }
    }

    private func waitUntil(_ condition: @escaping (ManualClock) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                if condition(self) { return true }
                waiters.append(({ condition(self) }, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func wakeWaiters() {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            var ready: [CheckedContinuation<Void, Never>] = []
            waiters.removeAll { waiter in
                guard waiter.ready() else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
