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

    @Test("a listening connection gone silent is found so within the keep-alive timeout and opened again once the path carries bytes; what was published meanwhile, and after, arrives")
    func silentListener() async throws {
        guard let url = try TestDatabase.url() else { return }
        let proxy = try await FaultProxy.start(upstreamPort: try PostgresURL(parsing: url).port)
        let name = TestDatabase.unique("silent")
        var options = TestDatabase.options(name)
        // Longer than the catch-up's 5 s margin for notifications in flight: a message published
        // when the path went silent is older than that by the time the silence is found.
        options.keepAliveInterval = .milliseconds(500)
        options.keepAliveTimeout = .seconds(8)
        let listener = try await Self.connect(url, through: proxy, options: options)
        let publisher = try await PostgresClusterTransport.connect(url: url, options: options, logger: TestDatabase.logger)
        let inbox = Inbox()
        try await listener.subscribe(namespace: "/", deliver: inbox.deliver)
        try await publisher.publish(Self.numbered(1))
        #expect(try await inbox.messages.first(1, within: 30, "the first message") == [Self.numbered(1)])

        proxy.stallAll()
        proxy.refuseNewConnections(true)
        try await publisher.publish(Self.numbered(2))
        // Found within the timeout (and a margin for a loaded machine); without the check, never.
        #expect(try await listener.events.first(1, within: 14, "the silence found") == [.lost])

        await proxy.cutAllAndWait()
        proxy.refuseNewConnections(false)
        _ = try await listener.events.firstMatch(within: 30, "the reconnection") { $0 == .restored }
        try await publisher.publish(Self.numbered(3))
        let numbers = try await inbox.sequences(through: 3, within: 30, "the message of the silence and the one after")
        let applied = Inbox.applied(numbers, after: 1)
        #expect(applied == [2, 3], "\(numbers)")
        await listener.shutdown()
        await publisher.shutdown()
        await proxy.stop()
        _ = try? await TestDatabase.psql(url, "DROP TABLE IF EXISTS \(name)")
    }

    @Test("a query on a path gone silent throws timedOut within the query timeout; the next one runs on a new connection")
    func silentQuery() async throws {
        guard let url = try TestDatabase.url() else { return }
        let proxy = try await FaultProxy.start(upstreamPort: try PostgresURL(parsing: url).port)
        let name = TestDatabase.unique("stalledquery")
        var options = TestDatabase.options(name)
        options.queryTimeout = .seconds(1)
        // The listening connection's check stays out of the way: this is about queries.
        options.keepAliveInterval = .seconds(60)
        options.keepAliveTimeout = .seconds(120)
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
