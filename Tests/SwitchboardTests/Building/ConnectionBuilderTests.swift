import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard
import SwitchboardTesting

@Suite("Connection builder")
struct ConnectionBuilderTests {
    @Test func everyStepEndsUpInTheConfiguration() {
        let builder = ConnectionBuilder()
            .namespace("/chat")  // settings may come before the URL…
            .url(testURL)
            .path("/io/")        // …or after it
            .auth(["token": "secret"])
            .header("User-Agent", "Orders/2.1")
            .header("X-Trace", "1")
            .transport(.webSocketOnly)
            .connectTimeout(.seconds(7))
            .requestTimeout(.seconds(3))
            .maxQueuedCommands(5)
        let configuration = builder.configuration
        #expect(configuration.url == testURL)
        #expect(configuration.namespace == "/chat")
        #expect(configuration.path == "/io/")
        #expect(configuration.auth == .static(["token": "secret"]))
        #expect(configuration.headers == [.init(name: "User-Agent", value: "Orders/2.1"), .init(name: "X-Trace", value: "1")])
        #expect(configuration.transport == .webSocketOnly)
        #expect(configuration.connectTimeout == .seconds(7))
        #expect(configuration.requestTimeout == .seconds(3))
        #expect(configuration.maxQueuedCommands == 5)
        #expect(builder.stage.url == testURL)
    }

    @Test("the URL's path is the namespace unless one is given; a Socket.IO connection refuses a second, different one")
    func urlPathNamesTheNamespace() throws {
        let chatURL = try #require(URL(string: "http://127.0.0.1:1/chat"))
        #expect(ConnectionBuilder().url(chatURL).configuration.namespace == "/chat")
        #expect(ConnectionConfiguration(url: chatURL).namespace == "/chat")
        #expect(ConnectionConfiguration(url: testURL).namespace == "/")
        #expect(ConnectionBuilder().url(chatURL).namespace("/chat").configuration.namespace == "/chat")
        let conflicting = ConnectionBuilder().url(chatURL).namespace("/news").configuration
        #expect(throws: ConnectionError.invalidConfiguration("http://127.0.0.1:1/chat names the namespace /chat but the namespace /news was given too: name it one way")) {
            _ = try SocketIODriver(configuration: conflicting)
        }
    }

    @Test func connectIsTheWayToAUsableConnection() async throws {
        // Only a builder with a URL has `connect`. This does not compile:
        //
        //     let broken = try await ConnectionBuilder().namespace("/chat").connect()
        //     // error: referencing instance method 'connect(using:)' on 'ConnectionBuilder'
        //     //        requires the types 'MissingURL' and 'HasURL' be equivalent
        let server = InMemoryServer()
        server.onRequest("greet") { .string("hello, \($0.stringValue ?? "?")") }
        let connection = try await withTimeout(10, "connect") {
            try await ConnectionBuilder().url(testURL).connect(using: .inMemory(server))
        }
        #expect(connection.state == .connected)
        #expect(try await connection.request("greet", "ada").value == "hello, ada")
        try await connection.disconnect()
        try await connection.release()
    }

    @Test func aFailedConnectThrowsAndLeavesNothingOpen() async throws {
        let server = InMemoryServer()
        server.connectBehavior = .refuse("no entry")
        await #expect(throws: ConnectionError.connectFailed("no entry")) {
            _ = try await ConnectionBuilder().url(testURL).connect(using: .inMemory(server))
        }
        #expect(server.openConnectionCount == 0)
    }

    @Test func aLeaseFromTheBuilderIsPooled() async throws {
        let manager = ConnectionManager(factory: .inMemory(InMemoryServer()), clock: ManualClock(), networkMonitor: nil)
        let builder = ConnectionBuilder().url(testURL).namespace("/orders")
        let first = try await builder.lease(in: manager)
        let second = try await builder.lease(in: manager)
        #expect(first.connection === second.connection)
        #expect(manager.pool.existingConnection(for: builder.configuration) === first.connection)
        await manager.shutdown()
    }
}
