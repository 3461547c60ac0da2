import Foundation
import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Our own client in Engine.IO v3 mode against our own server with `allowEIO3` — the two v3
/// implementations (each also checked against python-socketio 4.x) agree — and `.auto` against a
/// server without it, which stays on v4.
@Suite("Protocol v3: our client against our server")
struct ProtocolV3AgainstOurServerTests {
    @Test(arguments: [[EngineTransportKind.polling], [.websocket], [.polling, .websocket]])
    func eventsAcksBinaryAndANamespaceWithAuthInItsQuery(_ transports: [EngineTransportKind]) async throws {
        let harness = try await EmbeddedHarness.start { $0.allowEIO3 = true }
        var configuration = Manager.Configuration()
        configuration.version = .v3
        configuration.transports = transports
        configuration.reconnection = false
        let manager = try Manager(url: harness.url, configuration: configuration)
        let root = manager.socket(namespace: "/")
        try await withTimeout(20, "the v3 connection") { try await root.connect() }
        #expect(manager.engineIOVersion == .v3)
        let echoes = root.events(named: "echo")
        try root.emit("echo", "hello", 7)
        let echo = try await echoes.first(1, within: 10, "the echo")
        #expect(echo.first?.items == ["hello", 7], "no recovery offset for a v4-protocol socket")
        let reply = try await root.emitWithAck("binary", .binary(Data([1, 2, 3])))
        #expect(reply == [.binary(Data([1, 2, 3]))])

        let chat = manager.socket(namespace: "/chat", auth: .static(["token": "secret"]))
        try await withTimeout(20, "/chat") { try await chat.connect() }
        #expect(try await chat.emitWithAck("ack", "inside") == ["inside"])
        await manager.close()
        await harness.stop()
    }

    /// Protocol v4 carries auth in the namespace's query (`40/auth?token=…,`), which servers
    /// read as Node's querystring does (`+` is a space): every value arrives as it was given,
    /// `+`, `&`, `=`, `%`, spaces and non-ASCII included, and a value that is not a string as its
    /// JSON text.
    @Test func authInTheNamespaceQueryArrivesAsGiven() async throws {
        let harness = try await EmbeddedHarness.start { $0.allowEIO3 = true }
        harness.server.namespace("/auth").onConnection { socket in
            let auth = socket.handshake.auth ?? [:]
            socket.on("auth") { event in event.ack?.respond([.object(auth)]) }
        }
        var configuration = Manager.Configuration()
        configuration.version = .v3
        configuration.transports = [.websocket]
        configuration.reconnection = false
        let manager = try Manager(url: harness.url, configuration: configuration)
        let given: JSONObject = ["token": "a+b c&d=e%f?", "name": "Zoë", "n": 5]
        let socket = manager.socket(namespace: "/auth", auth: .static(given))
        try await withTimeout(20, "/auth") { try await socket.connect() }
        let reply = try await socket.emitWithAck("auth")
        let received = try #require(reply.first?.objectValue)
        #expect(Dictionary(uniqueKeysWithValues: received.map { ($0.key, $0.value) }) == ["token": "a+b c&d=e%f?", "name": "Zoë", "n": "5"])
        await manager.close()
        await harness.stop()
    }

    @Test func autoStaysOnV4WhenTheServerHasNoV3() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = Manager.Configuration()
        configuration.version = .auto
        configuration.reconnection = false
        let manager = try Manager(url: harness.url, configuration: configuration)
        let root = manager.socket(namespace: "/")
        try await withTimeout(20, "the connection") { try await root.connect() }
        #expect(manager.engineIOVersion == .v4)
        await manager.close()
        await harness.stop()
    }

    /// WebSocket only, a revision the server does not serve is refused with the upgrade's 400,
    /// whose body says so: a typed error at once, not a reconnection loop.
    @Test func aRevisionTheServerDoesNotServeOverWebSocketOnly() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = Manager.Configuration()
        configuration.version = .v3
        configuration.transports = [.websocket]
        configuration.connectTimeout = .seconds(30)
        let manager = try Manager(url: harness.url, configuration: configuration)
        let root = manager.socket(namespace: "/")
        await #expect(throws: SocketIOError.versionMismatch(client: .v3, server: .v4)) {
            try await withTimeout(20, "the refused connect") { try await root.connect() }
        }
        #expect(!root.active, "no reconnection follows")
        await manager.close()
        await harness.stop()
    }
}
