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
    /// The changes not written yet, one entry per session however many changes it had: its
    /// row as it is last (if connected since the last write), then how it ended (if it did).
    /// So what waits while the store is unreachable is bounded by the sessions, not the changes.
    struct Pending {
        private enum End { case disconnected, removed }
        private var order: [String] = []
        private var rows: [String: ClusterSession] = [:]
        private var ends: [String: End] = [:]

        var isEmpty: Bool { order.isEmpty }

        mutating func record(_ change: ClusterSessionChange) {
            let pid = change.pid
            if rows[pid] == nil, ends[pid] == nil { order.append(pid) }
            switch change {
            case .connected(let session):
                rows[pid] = session
                ends[pid] = nil
            case .disconnected:
                ends[pid] = .disconnected
            case .removed:
                rows[pid] = nil
                ends[pid] = .removed
            }
        }

        /// Everything, as changes in an order that gives each session its last state: the rows,
        /// then the disconnections, then the removals.
        mutating func take() -> [ClusterSessionChange] {
            defer { self = Pending() }
            let connected = order.compactMap { rows[$0] }.map(ClusterSessionChange.connected)
            let disconnected = order.filter { ends[$0] == .disconnected }.map { ClusterSessionChange.disconnected(pid: $0) }
            let removed = order.filter { ends[$0] == .removed }.map { ClusterSessionChange.removed(pid: $0) }
            return connected + disconnected + removed
        }
    }

    private struct State {
        var pending = Pending()
        var wake: CheckedContinuation<Void, Never>?
        /// The number of the last sleep, and whether its refresh timer fired: a timer that fires
        /// before the sleep's continuation is stored must still end that sleep.
        var sleep = 0
        var sleepDue = false
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

    /// Queues `change` (folded into what is already queued for its session).
    func record(_ change: ClusterSessionChange) {
        let wake = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed else { return nil }
            state.pending.record(change)
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
            state.writing = true
            return state.pending.take()
        }
        guard let taken else { return nil }
        if !taken.isEmpty { return taken }
        // Nothing queued: sleep until something is, or the refresh is due.
        let delay = max(.zero, refreshAt - clock.now())
        let sleep = state.withLockedValue { state in
            state.sleep += 1
            state.sleepDue = false
            return state.sleep
        }
        let cancel = clock.schedule(delay) { [self] in
            let wake = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                guard state.sleep == sleep else { return nil }
                state.sleepDue = true
                defer { state.wake = nil }
                return state.wake
            }
            wake?.resume()
        }
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Bool in
                guard state.pending.isEmpty, !state.closed, !state.sleepDue else { return true }
                state.wake = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        cancel()
        return state.withLockedValue { state -> [ClusterSessionChange]? in
            guard !state.pending.isEmpty else { return state.closed ? nil : [] }
            state.writing = true
            return state.pending.take()
        }
    }

    private func write(_ batch: [ClusterSessionChange], owner: String, clock: Timeline) async {
        var delay = RetryDelay(cap: .seconds(1))
        while true {
            do {
                try await store.writeSessions(batch, owner: owner)
                break
            } catch {
                let closed = state.withLockedValue { $0.closed }
                logger.warning("could not write sessions to the cluster; retrying", metadata: ["error": "\(error)", "changes": "\(batch.count)"])
                if closed && delay.isCapped { break }
                do { try await clock.sleep(delay.next()) } catch { break }
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
