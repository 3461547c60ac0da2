import Logging
import NIOConcurrencyHelpers
import SwitchboardCore

/// Writes one namespace's session changes to the cluster's store, in batches: each write takes
/// everything that queued up during the previous one, so a change is in the store within about
/// two writes' round trips, unless the store is unreachable, when the batch is retried, in
/// order, until it is not. Every ``refreshInterval`` the connected sessions are marked as seen,
/// so a server that dies leaves them recoverable for `maxDisconnectionDuration` after its last
/// sign of life.
final class SessionKeeper: Sendable {
    private struct State {
        var pending: [ClusterSessionChange] = []
        var wake: CheckedContinuation<Void, Never>?
        var flushed: [CheckedContinuation<Void, Never>] = []
        var writing = false
        var closed = false
    }

    let store: any ClusterSessionStore
    let refreshInterval: Duration
    private let state = NIOLockedValueBox(State())
    private let logger: Logger

    init(store: any ClusterSessionStore, logger: Logger, refreshInterval: Duration = .seconds(2)) {
        self.store = store
        self.logger = logger
        self.refreshInterval = refreshInterval
    }

    /// Queues `change`; a session written whole twice in a row is written once, as it is last.
    func record(_ change: ClusterSessionChange) {
        let wake = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed else { return nil }
            if case .connected = change, let index = state.pending.lastIndex(where: { $0.pid == change.pid }),
               case .connected = state.pending[index] {
                state.pending[index] = change
            } else {
                state.pending.append(change)
            }
            defer { state.wake = nil }
            return state.wake
        }
        wake?.resume()
    }

    /// Writes until ``close()``: what queued up, and the refresh when it is due.
    func run(owner: String, clock: Timeline) async {
        var lastRefresh = clock.now()
        while true {
            guard let batch = await nextBatch(clock: clock, refreshAt: lastRefresh + refreshInterval) else { return }
            if !batch.isEmpty { await write(batch, owner: owner, clock: clock) }
            if clock.now() - lastRefresh >= refreshInterval {
                lastRefresh = clock.now()
                do {
                    try await store.refreshSessions(owner: owner)
                } catch {
                    logger.warning("could not refresh the sessions kept in the cluster", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Waits for changes, or for the refresh to be due; `nil` once closed and drained.
    private func nextBatch(clock: Timeline, refreshAt: Duration) async -> [ClusterSessionChange]? {
        let taken = state.withLockedValue { state -> [ClusterSessionChange]? in
            guard !state.pending.isEmpty else { return state.closed ? nil : [] }
            defer { state.pending = [] }
            state.writing = true
            return state.pending
        }
        guard let taken else { return nil }
        if !taken.isEmpty { return taken }
        // Nothing queued: sleep until something is, or the refresh is due.
        let delay = max(.zero, refreshAt - clock.now())
        let cancel = clock.schedule(delay) { [self] in
            let wake = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                defer { state.wake = nil }
                return state.wake
            }
            wake?.resume()
        }
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Bool in
                guard state.pending.isEmpty, !state.closed else { return true }
                state.wake = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        cancel()
        return state.withLockedValue { state -> [ClusterSessionChange]? in
            guard !state.pending.isEmpty else { return state.closed ? nil : [] }
            defer { state.pending = [] }
            state.writing = true
            return state.pending
        }
    }

    private func write(_ batch: [ClusterSessionChange], owner: String, clock: Timeline) async {
        var delay: Duration = .milliseconds(50)
        while true {
            do {
                try await store.writeSessions(batch, owner: owner)
                break
            } catch {
                let closed = state.withLockedValue { $0.closed }
                logger.warning("could not write sessions to the cluster; retrying", metadata: ["error": "\(error)", "changes": "\(batch.count)"])
                if closed && delay >= .seconds(1) { break }
                do { try await clock.sleep(delay) } catch { break }
                delay = min(delay * 2, .seconds(1))
            }
        }
        let done = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.writing = false
            guard state.pending.isEmpty else { return [] }
            defer { state.flushed = [] }
            return state.flushed
        }
        for continuation in done { continuation.resume() }
    }

    /// Returns once every change queued before it is in the store (or given up on).
    func flush() async {
        await withCheckedContinuation { continuation in
            let (done, wake) = state.withLockedValue { state -> (Bool, CheckedContinuation<Void, Never>?) in
                guard !state.pending.isEmpty || state.writing else { return (true, nil) }
                state.flushed.append(continuation)
                defer { state.wake = nil }
                return (false, state.wake)
            }
            wake?.resume()
            if done { continuation.resume() }
        }
    }

    /// Stops after writing what is queued.
    func close() {
        let (wake, flushed) = state.withLockedValue { state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            state.closed = true
            defer { state.wake = nil }
            let flushed = state.pending.isEmpty && !state.writing ? state.flushed : []
            if !flushed.isEmpty { state.flushed = [] }
            return (state.wake, flushed)
        }
        wake?.resume()
        for continuation in flushed { continuation.resume() }
    }
}
