import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import SwitchboardDemo
import Switchboard
import SwitchboardTestSupport
import Testing

/// Pooled Socket.IO connections to one server with different namespaces share one Engine.IO
/// session, as socket.io multiplexes; each keeps its own lease, state and keeper rules, and the
/// last one released closes the session.
@Suite struct MultiplexingTests {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test(arguments: [ConnectionTransport.webSocketOnly, .pollingThenWebSocket])
    func twoNamespacesOfOneServerShareOneEngineSession(transport: ConnectionTransport) async throws {
        let server = SocketIOServer(configuration: DemoApplication.configuration, logger: Self.silent)
        DemoApplication.install(on: server, logger: Self.silent).cancel()
        let opened = NIOLockedValueBox(0)
        let (closes, closed) = AsyncStream<Void>.makeStream()
        server.onConnectionEvent { event in
            if case .sessionOpened = event { opened.withLockedValue { $0 += 1 } }
            if case .sessionClosed = event { closed.yield() }
        }
        let running = try await server.start()
        let manager = ConnectionManager(factory: .socketIO, scanInterval: .milliseconds(50))

        var root = ConnectionConfiguration(url: running.url)
        root.transport = transport
        var chat = ConnectionConfiguration(url: running.url, namespace: "/chat")
        chat.transport = transport
        chat.auth = .static(["token": "secret"])
        let orders = try await manager.lease(root)
        let messages = try await manager.lease(chat)
        #expect(orders.connection !== messages.connection, "one connection per namespace")
        for lease in [orders, messages] {
            _ = try await lease.connection.stateChanges().firstMatch(within: 20, "connected") { $0 == .connected }
        }
        #expect(try await orders.connection.request("ack", "orders").value == "orders")
        #expect(try await messages.connection.request("ack", "chat").value == "chat")
        #expect(server.sessionCount == 1, "both namespaces ride one Engine.IO session")
        #expect(opened.withLockedValue { $0 } == 1)

        // The first namespace let go: the keeper disconnects it; the other carries on.
        orders.release()
        _ = try await orders.connection.stateChanges().firstMatch(within: 20, "the first released") { $0 == .released }
        #expect(try await messages.connection.request("ack", "still here").value == "still here")
        #expect(server.sessionCount == 1)

        // The last one let go: the session closes.
        messages.release()
        _ = try await closes.first(1, within: 20, "the Engine.IO session closing")
        #expect(server.sessionCount == 0)
        await manager.shutdown()
        await running.stop()
    }

    /// The query is an engine option (sent with every Engine.IO request, seen by the server in
    /// each namespace's handshake): connections whose URLs differ in it get sessions of their
    /// own. Before, `/admin?tenant=b` rode the session of `/?tenant=a` and the server saw
    /// `tenant=a` for it.
    @Test func connectionsWithDifferentQueriesDoNotShareASession() async throws {
        let server = SocketIOServer(configuration: DemoApplication.configuration, logger: Self.silent)
        let tenants = AsyncStream.makeStream(of: String.self)
        for namespace in ["/", "/admin"] {
            server.namespace(namespace).onConnection { socket in
                tenants.continuation.yield("\(namespace) \(socket.handshake.query["tenant"] ?? "none")")
            }
        }
        let running = try await server.start()
        let manager = ConnectionManager(factory: .socketIO, scanInterval: .milliseconds(50))
        var leases: [ConnectionLease] = []
        for (path, tenant) in [("/", "a"), ("/admin", "b")] {
            var components = try #require(URLComponents(url: running.url, resolvingAgainstBaseURL: false))
            components.path = path
            components.query = "tenant=\(tenant)"
            var configuration = ConnectionConfiguration(url: try #require(components.url))
            configuration.transport = .webSocketOnly
            leases.append(try await manager.lease(configuration))
        }
        let seen = try await tenants.stream.first(2, within: 20, "both namespaces connecting")
        #expect(Set(seen) == ["/ a", "/admin b"])
        #expect(server.sessionCount == 2)
        for lease in leases { lease.release() }
        await manager.shutdown()
        await running.stop()
    }
}
