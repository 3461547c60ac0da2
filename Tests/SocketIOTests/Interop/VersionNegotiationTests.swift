import Foundation
import SocketIO
import SwitchboardTestSupport
import Testing

/// `.auto` finds the server's revision; a forced revision the server does not speak ends in a
/// typed error naming both — never a hang.
@Suite("Engine.IO version negotiation")
struct VersionNegotiationTests {
    @Test(arguments: [(PythonPeer.Kind.v5, EngineIOVersion.v4), (.v3, .v3)])
    func autoConnectsToBothServerLines(_ peer: PythonPeer.Kind, _ expected: EngineIOVersion) async throws {
        guard let server = try await SharedPeers.shared.peer(peer) else { return }
        var configuration = Manager.Configuration()
        configuration.version = .auto
        configuration.connectTimeout = .seconds(10)
        let manager = try Manager(url: URL(string: server.url)!, configuration: configuration)
        let socket = manager.socket()
        try await withTimeout(15, "auto connect") { try await socket.connect() }
        #expect(manager.engineIOVersion == expected)
        let reply = try await socket.emitWithAck("ack", "auto")
        #expect(reply == ["auto"])
        await manager.close()
    }

    /// WebSocket only, the refusal is the upgrade's 400 and its body: `.auto` reads it too.
    @Test func autoOverWebSocketOnlyFallsBackToV3() async throws {
        guard let server = try await SharedPeers.shared.peer(.v3) else { return }
        var configuration = Manager.Configuration()
        configuration.version = .auto
        configuration.transports = [.websocket]
        configuration.connectTimeout = .seconds(10)
        let manager = try Manager(url: URL(string: server.url)!, configuration: configuration)
        let socket = manager.socket()
        try await withTimeout(15, "auto connect over WebSocket") { try await socket.connect() }
        #expect(manager.engineIOVersion == .v3)
        #expect(try await socket.emitWithAck("ack", "ws") == ["ws"])
        await manager.close()
    }

    @Test(arguments: [
        (PythonPeer.Kind.v3, EngineIOVersion.v4, EngineIOVersion.v3, [EngineTransportKind.polling, .websocket]),
        (.v5, .v3, .v4, [.polling, .websocket]),
        (.v3, .v4, .v3, [.websocket]),
        (.v5, .v3, .v4, [.websocket]),
    ])
    func aForcedVersionTheServerDoesNotSpeakIsATypedError(
        _ peer: PythonPeer.Kind, _ forced: EngineIOVersion, _ server: EngineIOVersion, _ transports: [EngineTransportKind]
    ) async throws {
        guard let peerServer = try await SharedPeers.shared.peer(peer) else { return }
        var configuration = Manager.Configuration()
        configuration.version = .exactly(forced)
        configuration.transports = transports
        configuration.connectTimeout = .seconds(5)
        let manager = try Manager(url: URL(string: peerServer.url)!, configuration: configuration)
        let socket = manager.socket()
        let error = await #expect(throws: SocketIOError.versionMismatch(client: forced, server: server)) {
            try await withTimeout(10, "mismatched connect") { try await socket.connect() }
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("\(forced)") && text.contains("\(server)"), "the message names both versions")
        #expect(!socket.connected)
        await manager.close()
    }
}
