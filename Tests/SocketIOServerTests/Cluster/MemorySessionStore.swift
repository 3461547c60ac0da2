import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport

/// A ``ClusterSessionStore`` in memory for servers in one process: messages go over a
/// ``LocalClusterBus``, numbered ones are also journaled, sessions kept in a table shared by
/// every server's store. Time is not kept (sessions never expire here; the PostgreSQL tests
/// cover expiry); "created at" is the journal's length then.
final class MemorySessionStore: ClusterSessionStore {
    /// What the servers' stores share.
    final class Shared: Sendable {
        struct Row: Sendable {
            var session: ClusterSession
            var owner: String
            var createdAt: Int
            var disconnected: Bool
        }

        struct State {
            var rows: [String: Row] = [:]
            var journal: [ClusterMessage] = []
        }

        let state = NIOLockedValueBox(State())

        /// The session rows by private id.
        var rows: [String: Row] { state.withLockedValue { $0.rows } }

        /// Where every session call passes: open unless ``stall()`` closed it.
        private let gate = Gate(open: true)

        /// How many calls wait in the stalled store.
        var stuckCalls: Int { gate.waiting }

        /// From now on every session call waits, deaf to cancellation (a database that accepts
        /// connections but stopped answering), until ``release()``.
        func stall() { gate.close() }

        /// Lets every waiting call go on (and later ones run).
        func release() { gate.open() }

        /// Where a session call waits while stalled.
        func waitWhileStalled() async { await gate.wait() }

        /// The pid of each ``takeSession(pid:namespace:owner:maxAge:)`` call, as it starts.
        let takes = AsyncStream.makeStream(of: String.self)
        /// Each batch of ``writeSessions(_:owner:)``, once in the table.
        let writes = AsyncStream.makeStream(of: (owner: String, changes: [ClusterSessionChange]).self)
    }

    let endpoint: LocalClusterBus.Endpoint
    let shared: Shared

    init(bus: LocalClusterBus, shared: Shared) {
        self.endpoint = bus.endpoint()
        self.shared = shared
    }

    var keepsSessions: Bool { true }

    func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws {
        try await endpoint.subscribe(namespace: namespace, deliver: deliver)
    }

    /// Journals a numbered message in the step that publishes it (as PostgreSQL's statement).
    func publish(_ message: ClusterMessage) async throws {
        if message.sequence != nil { shared.state.withLockedValue { $0.journal.append(message) } }
        try await endpoint.publish(message)
    }

    func shutdown() async { await endpoint.shutdown() }

    func prepareSessions(retention: Duration) async throws {}

    func writeSessions(_ changes: [ClusterSessionChange], owner: String) async throws {
        await shared.waitWhileStalled()
        defer { shared.writes.continuation.yield((owner, changes)) }
        shared.state.withLockedValue { state in
            for change in changes {
                switch change {
                case .connected(let session):
                    if let row = state.rows[session.pid] {
                        guard row.owner == owner else { continue }
                        state.rows[session.pid]?.session = session
                        state.rows[session.pid]?.disconnected = false
                    } else {
                        state.rows[session.pid] = Shared.Row(session: session, owner: owner, createdAt: state.journal.count, disconnected: false)
                    }
                case .disconnected(let pid):
                    if state.rows[pid]?.owner == owner { state.rows[pid]?.disconnected = true }
                case .removed(let pid):
                    if state.rows[pid]?.owner == owner { state.rows[pid] = nil }
                }
            }
        }
    }

    /// Each ``refreshSessions(owner:)`` call, with its owner.
    let refreshes = AsyncStream.makeStream(of: String.self)

    func refreshSessions(owner: String) async throws {
        refreshes.continuation.yield(owner)
    }

    func takeSession(pid: String, namespace: String, owner: String, maxAge: Duration) async throws -> TakenClusterSession? {
        shared.takes.continuation.yield(pid)
        await shared.waitWhileStalled()
        return shared.state.withLockedValue { state in
            guard let row = state.rows[pid], row.session.namespace == namespace else { return nil }
            state.rows[pid]?.owner = owner
            state.rows[pid]?.disconnected = false
            return TakenClusterSession(session: row.session, owner: row.owner, createdAt: String(row.createdAt))
        }
    }

    func journal(namespace: String, ranges: [ClusterJournalRange], since: String) async throws -> [ClusterMessage] {
        let created = Int(since) ?? 0
        return shared.state.withLockedValue { state in
            state.journal.enumerated().filter { position, message in
                guard message.namespace == namespace, let sequence = message.sequence,
                      let range = ranges.first(where: { $0.origin == message.originTag }) else { return false }
                guard sequence <= range.through else { return false }
                if let after = range.after { return sequence > after }
                return position >= created
            }.map(\.element)
        }
    }

    func lastJournaled(namespace: String) async throws -> [String: UInt64] {
        try await lastJournaled(namespace: namespace, origins: nil)
    }

    func lastJournaled(namespace: String, origins: [String]) async throws -> [String: UInt64] {
        try await lastJournaled(namespace: namespace, origins: Optional(origins))
    }

    private func lastJournaled(namespace: String, origins: [String]?) async throws -> [String: UInt64] {
        shared.state.withLockedValue { state in
            var last: [String: UInt64] = [:]
            for message in state.journal where message.namespace == namespace && origins?.contains(message.originTag) != false {
                if let sequence = message.sequence { last[message.originTag] = max(last[message.originTag] ?? 0, sequence) }
            }
            return last
        }
    }
}
