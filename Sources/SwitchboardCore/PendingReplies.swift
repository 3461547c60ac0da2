import NIOConcurrencyHelpers

/// Callers waiting for replies, by id, each answered exactly once: by its reply, by its
/// deadline on an injected clock, or by its owner failing it (a disconnect, a close). One of
/// these serves every "send, then wait for the answer with this id" in the project: the
/// client's acks, the server's acks, the plain WebSocket driver's requests and the platform
/// connection's requests.
///
/// Deadlines share one timer: it is armed for the earliest deadline and, when it fires, fails
/// what expired and arms itself for the next. A caller answered in time leaves the timer as it
/// is (no cancel, no new timer per call), so a stream of calls with the same timeout arms a
/// timer only when the previous one fires — not one per call, which on an event loop's timers
/// woke the loop's thread once more per call. The timer stops when the owner fails its callers
/// (a disconnect, a close) or goes away.
package final class PendingReplies<ID: Hashable & Sendable, Reply: Sendable, Failure: Error>: Sendable {
    /// Hears the outcome, exactly once (never under the lock).
    package typealias Completion = @Sendable (Result<Reply, Failure>) -> Void

    private struct Entry: Sendable {
        let complete: Completion
        let deadline: Deadline?
        /// When `deadline` passes, on its timeline.
        let due: Duration
    }

    /// The one timer: when it fires (on `timeline`) and what cancels it.
    private struct Timer: Sendable {
        let generation: UInt64
        let due: Duration
        let timeline: Timeline
        var cancel: (@Sendable () -> Void)?

        /// Time left until it fires.
        var remaining: Duration { due - timeline.now() }
    }

    private struct State: Sendable {
        var entries: [ID: Entry] = [:]
        var timer: Timer?
        var generation: UInt64 = 0

        /// The waiting entry whose deadline comes first, with the time left until it.
        func earliest() -> (entry: Entry, remaining: Duration)? {
            var best: (entry: Entry, remaining: Duration)?
            for entry in entries.values {
                guard let deadline = entry.deadline else { continue }
                let remaining = entry.due - deadline.timeline.now()
                if best.map({ remaining < $0.remaining }) ?? true { best = (entry, remaining) }
            }
            return best
        }

        /// Takes the timer's slot for `entry`'s deadline (in `remaining`); returns the timer
        /// it replaces, to cancel.
        mutating func arm(for entry: Entry, remaining: Duration) -> Timer? {
            guard let deadline = entry.deadline else { return nil }
            generation += 1
            defer { timer = Timer(generation: generation, due: deadline.timeline.now() + remaining, timeline: deadline.timeline) }
            return timer
        }
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    deinit {
        // A timer left armed after the last answer: its owner is gone, nothing is due.
        state.withLockedValue { $0.timer?.cancel }?()
    }

    /// How many wait now.
    package var count: Int { state.withLockedValue { $0.entries.count } }

    /// How many of them wait with a deadline.
    package var deadlineCount: Int { state.withLockedValue { $0.entries.values.count { $0.deadline != nil } } }

    /// The ids that wait now.
    package var ids: [ID] { state.withLockedValue { Array($0.entries.keys) } }

    /// Whether `id` still waits.
    package func contains(_ id: ID) -> Bool {
        state.withLockedValue { $0.entries[id] != nil }
    }

    /// What happens when a caller waits too long: after `after` on `timeline`, it is answered
    /// with `expired(id)`'s failure (unless answered first); `expired` may also tidy up what
    /// the owner keeps for `id`.
    package struct Deadline: Sendable {
        let after: Duration
        let timeline: Timeline
        let expired: @Sendable (ID) -> Failure

        package init(after: Duration, on timeline: Timeline, expired: @escaping @Sendable (ID) -> Failure) {
            self.after = after
            self.timeline = timeline
            self.expired = expired
        }
    }

    /// Registers `id` (ids are unique while they wait), with its deadline if any. With a
    /// `limit`, registers only while fewer than `limit` wait, and returns whether it did.
    @discardableResult
    package func add(_ id: ID, deadline: Deadline? = nil, limit: Int? = nil, complete: @escaping Completion) -> Bool {
        let due = deadline.map { $0.timeline.now() + $0.after } ?? .zero
        let entry = Entry(complete: complete, deadline: deadline, due: due)
        let (added, arm) = state.withLockedValue { state -> (Bool, (generation: UInt64, replaced: Timer?)?) in
            if let limit, state.entries.count >= limit { return (false, nil) }
            state.entries[id] = entry
            // The timer stays when it fires first; otherwise this deadline takes it.
            guard let deadline, state.timer.map({ deadline.after < $0.remaining }) ?? true else { return (true, nil) }
            let replaced = state.arm(for: entry, remaining: deadline.after)
            return (true, (state.generation, replaced))
        }
        if let arm {
            arm.replaced?.cancel?()
            schedule(arm.generation, after: deadline?.after ?? .zero, on: deadline?.timeline)
        }
        return added
    }

    /// Starts timer `generation` and keeps what cancels it (cancelled at once when the timer was
    /// replaced meanwhile).
    private func schedule(_ generation: UInt64, after delay: Duration, on timeline: Timeline?) {
        guard let timeline else { return }
        let cancel = timeline.schedule(max(delay, .zero)) { [weak self] in self?.timerFired(generation) }
        let stored = state.withLockedValue { state -> Bool in
            guard state.timer?.generation == generation else { return false }
            state.timer?.cancel = cancel
            return true
        }
        if !stored { cancel() }
    }

    /// The timer fired: fails what expired, and arms the timer for the next deadline.
    private func timerFired(_ generation: UInt64) {
        let (expired, next) = state.withLockedValue { state -> ([(ID, Entry)], (generation: UInt64, remaining: Duration, timeline: Timeline)?) in
            guard state.timer?.generation == generation else { return ([], nil) }
            state.timer = nil
            let expired = state.entries.filter { _, entry in
                entry.deadline.map { entry.due <= $0.timeline.now() } ?? false
            }
            for (id, _) in expired { state.entries.removeValue(forKey: id) }
            guard let (entry, remaining) = state.earliest(), let timeline = entry.deadline?.timeline else { return (Array(expired), nil) }
            _ = state.arm(for: entry, remaining: remaining)
            return (Array(expired), (state.generation, remaining, timeline))
        }
        if let next { schedule(next.generation, after: next.remaining, on: next.timeline) }
        for (id, entry) in expired {
            guard let deadline = entry.deadline else { continue }
            entry.complete(.failure(deadline.expired(id)))
        }
    }

    /// Answers `id` with `result` if it still waits; `false` if it was answered already.
    @discardableResult
    package func settle(_ id: ID, with result: Result<Reply, Failure>) -> Bool {
        guard let entry = state.withLockedValue({ $0.entries.removeValue(forKey: id) }) else { return false }
        entry.complete(result)
        return true
    }

    /// Fails these ids (those that still wait) with `failure`; the timer stops when nobody is
    /// left waiting (a disconnect: no call follows soon to reuse it).
    package func fail(_ ids: some Sequence<ID>, with failure: Failure) {
        let (taken, timer) = state.withLockedValue { state in
            let taken = ids.compactMap { state.entries.removeValue(forKey: $0) }
            guard state.entries.isEmpty else { return (taken, Timer?.none) }
            defer { state.timer = nil }
            return (taken, state.timer)
        }
        timer?.cancel?()
        for entry in taken { entry.complete(.failure(failure)) }
    }

    /// Fails every waiting caller with `failure`, and stops the timer.
    package func failAll(with failure: Failure) {
        let (taken, timer) = state.withLockedValue { state in
            defer { state.entries = [:]; state.timer = nil }
            return (Array(state.entries.values), state.timer)
        }
        timer?.cancel?()
        for entry in taken { entry.complete(.failure(failure)) }
    }
}
