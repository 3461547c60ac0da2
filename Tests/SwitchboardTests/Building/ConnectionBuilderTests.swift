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
        let manager = ConnectionManager(factory: .inMemory(InMemoryServer()), clock: ManualClock())
        let builder = ConnectionBuilder().url(testURL).namespace("/orders")
        let first = try await builder.lease(in: manager)
        let second = try await builder.lease(in: manager)
        #expect(first.connection === second.connection)
        #expect(manager.pool.existingConnection(for: builder.configuration) === first.connection)
        await manager.shutdown()
    }
}
