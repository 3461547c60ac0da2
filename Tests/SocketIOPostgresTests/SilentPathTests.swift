import Foundation
import Harness
import SocketIOServer
import SwitchboardTestSupport
import Testing

@testable import SocketIOPostgres

/// A path to PostgreSQL that goes silent — no RST, no FIN: a partition, a stalled proxy, a hung
/// server — through ``FaultProxy``, against a real PostgreSQL (`SWITCHBOARD_POSTGRES_URL`).
/// Nothing closes the connections, so only the transport's own checks can find it.
@Suite("PostgreSQL path gone silent", .serialized)
struct SilentPathTests {
    /// A transport whose connections go through `proxy`.
    static func connect(_ url: String, through proxy: FaultProxy, options: PostgresClusterTransport.Options) async throws -> PostgresClusterTransport {
        let parsed = try PostgresURL(parsing: url)
        let proxied = "postgres://\(parsed.username)@127.0.0.1:\(proxy.port)/\(parsed.database ?? parsed.username)"
        return try await PostgresClusterTransport.connect(url: proxied, options: options, logger: TestDatabase.logger)
    }

    static func numbered(_ number: Int) -> ClusterMessage {
        ClusterMessage(uid: "publisher", namespace: "/", type: .broadcast, data: ["n": .number(Double(number))], sequence: UInt64(number))
    }

    @Test("a query on a path gone silent throws timedOut within the query timeout; the next one runs on a new connection")
    func silentQuery() async throws {
        guard let url = try TestDatabase.url() else { return }
        let proxy = try await FaultProxy.start(upstreamPort: try PostgresURL(parsing: url).port)
        let name = TestDatabase.unique("stalledquery")
        var options = TestDatabase.options(name)
        options.queryTimeout = .seconds(1)
        let stalled = try await Self.connect(url, through: proxy, options: options)
        let other = try await PostgresClusterTransport.connect(url: url, options: options, logger: TestDatabase.logger)
        let inbox = Inbox()
        try await other.subscribe(namespace: "/", deliver: inbox.deliver)

        // A publish: the cluster adapter retries it on this error, where it waited for good.
        proxy.stallAll()
        let publishError = await #expect(throws: PostgresClusterTransportError.self) {
            try await withTimeout(10, "the publish on the stalled connection") { try await stalled.publish(Self.numbered(1)) }
        }
        guard case .timedOut? = publishError else {
            Issue.record("expected timedOut, got \(String(describing: publishError))")
            return
        }
        // The stalled connection was closed; the next publish opens another (new ones pass).
        try await withTimeout(10, "the publish on a new connection") { try await stalled.publish(Self.numbered(2)) }
        #expect(try await inbox.messages.first(1, within: 30, "the published message") == [Self.numbered(2)])

        // A session-store call (a recovering client's handshake waits on these).
        proxy.stallAll()
        let storeError = await #expect(throws: PostgresClusterTransportError.self) {
            try await withTimeout(10, "the session-store call on the stalled connection") { try await stalled.lastJournaled(namespace: "/") }
        }
        guard case .timedOut? = storeError else {
            Issue.record("expected timedOut, got \(String(describing: storeError))")
            return
        }
        await stalled.shutdown()
        await other.shutdown()
        await proxy.stop()
        _ = try? await TestDatabase.psql(url, "DROP TABLE IF EXISTS \(name)")
    }
}
