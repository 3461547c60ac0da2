import Logging
import PostgresNIO

/// The connection that publishes, fetches attachments and cleans the table: opened again on
/// the next query after it is lost, so a query fails only while the database is really
/// unreachable.
actor QueryConnection {
    private let connector: PostgresConnector
    private var state = QueryConnectionState<PostgresConnection, Task<PostgresConnection, any Error>>()

    init(connector: PostgresConnector) {
        self.connector = connector
    }

    /// Runs `query`, connecting first if needed; returns its rows, collected.
    func run(_ query: PostgresQuery) async throws(PostgresClusterTransportError) -> [PostgresRow] {
        let connection = try await connection()
        do {
            return try await connection.query(query, logger: connector.logger).collect()
        } catch {
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
        do {
            let logger = connector.logger
            return try await PreparedQuery.$text.withValue(PreparedQuery.Text(sql: query.sql)) { () async throws -> [PostgresRow] in
                let rows: AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow> = try await connection.execute(
                    PreparedQuery(binds: query.binds), logger: logger
                )
                var collected: [PostgresRow] = []
                for try await row in rows { collected.append(row) }
                return collected
            }
        } catch {
            throw .queryFailed(PostgresConnector.describe(error))
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
