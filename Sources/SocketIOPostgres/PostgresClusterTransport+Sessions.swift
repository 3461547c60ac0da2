import Foundation
import PostgresNIO
public import SocketIOServer

/// Sessions kept in PostgreSQL for connection state recovery across servers (``Options/sessions``).
extension PostgresClusterTransport: ClusterSessionStore {
    /// Whether this transport keeps sessions (``Options/sessions`` and ``Options/journal``).
    public nonisolated var keepsSessions: Bool { sessionTable != nil }

    /// Keeps journal rows and sessions for at least `retention` (the tables were prepared
    /// when the transport connected).
    public func prepareSessions(retention: Duration) async throws {
        guard sessionTable != nil else { throw PostgresClusterTransportError.invalidOption("sessions are off") }
        self.retention = max(self.retention, retention)
        recoveryWindow = max(recoveryWindow ?? retention, retention)
    }

    /// Applies session changes in order, a statement per run of changes of one kind.
    public func writeSessions(_ changes: [ClusterSessionChange], owner: String) async throws {
        let table = try sessionTable.orClosed()
        for statement in table.statements(for: changes, owner: owner) { _ = try await queries.run(statement) }
    }

    /// Marks `owner`'s connected sessions as seen now.
    public func refreshSessions(owner: String) async throws {
        _ = try await queries.run(try sessionTable.orClosed().refresh(owner: owner))
    }

    /// Takes session `pid` for `owner`, unless it was last seen (or disconnected) more than
    /// `maxAge` ago; returns it as it was. No other server can take it after.
    public func takeSession(pid: String, namespace: String, owner: String, maxAge: Duration) async throws -> TakenClusterSession? {
        let rows = try await queries.run(try sessionTable.orClosed().take(pid: pid, namespace: namespace, owner: owner, maxAge: maxAge))
        guard let row = rows.first else { return nil }
        let (id, state, previous, created) = try row.decode((String, String, String, String).self)
        let session = try ClusterSession(pid: pid, id: id, namespace: namespace, stateJSON: state)
        return TakenClusterSession(session: session, owner: previous, createdAt: created)
    }

    /// The journal's numbered messages of `namespace` within `ranges` written within the
    /// recovery window, oldest first.
    public func journal(namespace: String, ranges: [ClusterJournalRange], since: String) async throws -> [ClusterMessage] {
        guard !ranges.isEmpty else { return [] }
        let rows = try await queries.run(try sessionTable.orClosed().journalRows(
            namespace: namespace,
            origins: ranges.map(\.origin),
            after: ranges.map { $0.after.map { Int64(clamping: $0) } ?? -1 },
            through: ranges.map { Int64(clamping: $0.through) },
            since: since,
            window: journalWindow
        ))
        return try SessionTable.messages(rows, logger: logger)
    }

    /// The highest journaled number of each of `origins` in `namespace`, within the recovery window.
    public func lastJournaled(namespace: String, origins: [String]) async throws -> [String: UInt64] {
        guard !origins.isEmpty else { return [:] }
        return try SessionTable.lastNumbers(try await queries.run(try sessionTable.orClosed().lastJournaled(namespace: namespace, origins: origins, window: journalWindow)))
    }

    /// The highest journaled number of every origin in `namespace`, within the recovery window.
    public func lastJournaled(namespace: String) async throws -> [String: UInt64] {
        try SessionTable.lastNumbers(try await queries.run(try sessionTable.orClosed().lastJournaled(namespace: namespace, window: journalWindow)))
    }

    /// How far back the journal is read: the longest recovery window a server asked for (a
    /// client gone longer has no session to recover), or the retention before any asked.
    private var journalWindow: Duration { recoveryWindow ?? retention }
}

extension Optional where Wrapped == SessionTable {
    /// The table, or ``PostgresClusterTransportError/invalidOption(_:)`` when sessions are off.
    func orClosed() throws(PostgresClusterTransportError) -> SessionTable {
        guard let self else { throw .invalidOption("sessions are off (Options.sessions)") }
        return self
    }
}
