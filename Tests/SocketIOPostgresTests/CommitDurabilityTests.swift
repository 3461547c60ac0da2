import Logging
import PostgresNIO
import Testing

@testable import SocketIOPostgres

@Suite("PostgreSQL connections: commit durability")
struct CommitDurabilityTests {
    @Test("by default the transport's connections commit without waiting for the flush; synchronousCommit: true leaves the database's setting")
    func synchronousCommit() async throws {
        #expect(PostgresClusterTransport.Options().synchronousCommit == false)
        let waits = PostgresConnector(url: try PostgresURL(parsing: "postgres://u@127.0.0.1/db"), synchronousCommit: true, logger: Logger(label: "test"))
        #expect(!waits.configuration.options.additionalStartupParameters.contains { $0.0 == "synchronous_commit" })

        let fast = PostgresConnector(url: try PostgresURL(parsing: "postgres://u@127.0.0.1/db"), synchronousCommit: false, logger: Logger(label: "test"))
        #expect(fast.configuration.options.additionalStartupParameters.contains { $0 == ("synchronous_commit", "off") })

        // The database takes it (scripts/postgres has it off for every session; so does this one).
        guard let url = try TestDatabase.url() else { return }
        let connector = PostgresConnector(url: try PostgresURL(parsing: url), synchronousCommit: false, logger: Logger(label: "test"))
        let connection = try await connector.connect()
        let rows = try await connection.query("SHOW synchronous_commit", logger: connector.logger).collect()
        #expect(try rows.first?.decode(String.self) == "off")
        try await connection.close()
    }
}
