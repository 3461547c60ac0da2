import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import SwitchboardCore

/// The connection that publishes, fetches attachments and cleans the table: opened again on
/// the next query after it is lost, so a query fails only while the database is really
/// unreachable.
///
/// Every query has a deadline (``PostgresClusterTransport/Options/queryTimeout``): a path to
/// PostgreSQL that goes silent closes nothing, and its queries would wait for good. At the
/// deadline the connection is closed, which fails the query (``PostgresClusterTransportError/timedOut(_:)``)
/// and makes the next one connect again.
actor QueryConnection {
    private let connector: PostgresConnector
    private let timeout: Duration
    /// The deadlines' timers: the connections' event loop (no task per query).
    private let timeline: Timeline
    private var state = QueryConnectionState<PostgresConnection, Task<PostgresConnection, any Error>>()

    init(connector: PostgresConnector, timeout: Duration) {
        self.connector = connector
        self.timeout = timeout
        self.timeline = Timeline(ContinuousClock(), scheduler: Timeline.eventLoopScheduler(connector.eventLoop))
    }

    /// Runs `query`, connecting first if needed; returns its rows, collected.
    func run(_ query: PostgresQuery) async throws(PostgresClusterTransportError) -> [PostgresRow] {
        let connection = try await connection()
        return try await withDeadline(on: connection) {
            try await connection.query(query, logger: connector.logger).collect()
        }
    }

    /// Runs `body` on `connection`, closing the connection if `body` has not returned by the
    /// deadline: a query on a closed connection fails at once.
    private func withDeadline<T>(on connection: PostgresConnection, _ body: () async throws -> T) async throws(PostgresClusterTransportError) -> T {
        let expired = NIOLockedValueBox(false)
        let cancel = timeline.schedule(timeout) {
            expired.withLockedValue { $0 = true }
            // The future-returning close: a timer cannot await.
            _ = connection.close() as EventLoopFuture<Void>
        }
        defer { cancel() }
        do {
            return try await body()
        } catch {
            if expired.withLockedValue({ $0 }) {
                // postgres-nio fails the query before the channel is inactive: the next query
                // would take the closing connection for an open one.
                try? await connection.closeFuture.get()
                throw .timedOut("no answer within \(timeout); the connection was closed")
            }
            throw .queryFailed(PostgresConnector.describe(error))
        }
    }

    /// Runs a `CREATE … IF NOT EXISTS` or `ALTER … IF NOT EXISTS`, again if it fails: servers
    /// starting together race to create the tables, and PostgreSQL fails all but one of them (a
    /// unique violation in its catalog) while the winner's transaction is open; once it
    /// committed, the statement succeeds.
    func runRetryingRaces(_ statement: PostgresQuery) async throws(PostgresClusterTransportError) {
        var attempts = 0
        while true {
            do {
                _ = try await run(statement)
                return
            } catch .queryFailed where attempts < 3 {
                attempts += 1
            }
        }
    }

    /// Runs `query` as a prepared statement (``PreparedQuery``): for a statement run again
    /// and again with other values.
    func runPrepared(_ query: PostgresQuery) async throws(PostgresClusterTransportError) -> [PostgresRow] {
        let connection = try await connection()
        let logger = connector.logger
        return try await withDeadline(on: connection) {
            try await PreparedQuery.$text.withValue(PreparedQuery.Text(sql: query.sql)) { () async throws -> [PostgresRow] in
                let rows: AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow> = try await connection.execute(
                    PreparedQuery(binds: query.binds), logger: logger
                )
                var collected: [PostgresRow] = []
                for try await row in rows { collected.append(row) }
                return collected
            }
        }
    }

    /// Closes the connection; later queries throw ``PostgresClusterTransportError/closed``.
    func close() async {
        switch state.close() {
        case .close(let connection): try? await connection.close()
        case .closeWhenConnected(let attempt):
            if let connection = try? await attempt.value { try? await connection.close() }
        case .none: break
        }
    }

    private func connection() async throws(PostgresClusterTransportError) -> PostgresConnection {
        let connector = connector
        switch state.acquire(isOpen: { !$0.isClosed }, start: { Task { try await connector.connect() } }) {
        case .use(let connection):
            return connection
        case .wait(let attempt, let number):
            return try await wait(for: attempt, number: number)
        case .closed:
            throw .closed
        }
    }

    private func wait(for attempt: Task<PostgresConnection, any Error>, number: Int) async throws(PostgresClusterTransportError) -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try await attempt.value
        } catch {
            state.failed(attempt: number)
            throw error as? PostgresClusterTransportError ?? .unreachable(PostgresConnector.describe(error))
        }
        switch state.connected(connection, attempt: number) {
        case .use:
            return connection
        case .close:
            try? await connection.close()
            throw .closed
        }
    }
}
