import NIOConcurrencyHelpers

/// Callers waiting for replies, by id, each answered exactly once: by its reply, by its
/// deadline on an injected clock, or by its owner failing it (a disconnect, a close). One of
/// these serves every "send, then wait for the answer with this id" in the project: the
/// client's acks, the server's acks, the plain WebSocket driver's requests and the platform
/// connection's requests.
package final class PendingReplies<ID: Hashable & Sendable, Reply: Sendable, Failure: Error>: Sendable {
    /// Hears the outcome, exactly once (never under the lock).
    package typealias Completion = @Sendable (Result<Reply, Failure>) -> Void

    private struct Entry: Sendable {
        let complete: Completion
        var cancelTimer: (@Sendable () -> Void)?
    }

    private let entries = NIOLockedValueBox<[ID: Entry]>([:])

    package init() {}

    /// How many wait now.
    package var count: Int { entries.withLockedValue { $0.count } }

    /// The ids that wait now.
    package var ids: [ID] { entries.withLockedValue { Array($0.keys) } }

    /// Whether `id` still waits.
    package func contains(_ id: ID) -> Bool {
        entries.withLockedValue { $0[id] != nil }
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
        let added = entries.withLockedValue { entries -> Bool in
            if let limit, entries.count >= limit { return false }
            entries[id] = Entry(complete: complete, cancelTimer: nil)
            return true
        }
        guard added, let deadline else { return added }
        let cancel = deadline.timeline.schedule(deadline.after) { [weak self] in
            guard let self, self.contains(id) else { return }
            self.settle(id, with: .failure(deadline.expired(id)))
        }
        let stored = entries.withLockedValue { entries -> Bool in
            guard entries[id] != nil else { return false }
            entries[id]?.cancelTimer = cancel
            return true
        }
        if !stored { cancel() }
        return true
    }

    /// Answers `id` with `result` if it still waits; `false` if it was answered already.
    @discardableResult
    package func settle(_ id: ID, with result: Result<Reply, Failure>) -> Bool {
        guard let entry = entries.withLockedValue({ $0.removeValue(forKey: id) }) else { return false }
        entry.cancelTimer?()
        entry.complete(result)
        return true
    }

    /// Fails these ids (those that still wait) with `failure`.
    package func fail(_ ids: some Sequence<ID>, with failure: Failure) {
        let taken = entries.withLockedValue { entries in ids.compactMap { entries.removeValue(forKey: $0) } }
        for entry in taken {
            entry.cancelTimer?()
            entry.complete(.failure(failure))
        }
    }

    /// Fails every waiting caller with `failure`.
    package func failAll(with failure: Failure) {
        let taken = entries.withLockedValue { entries in
            defer { entries = [:] }
            return Array(entries.values)
        }
        for entry in taken {
            entry.cancelTimer?()
            entry.complete(.failure(failure))
        }
    }
}
