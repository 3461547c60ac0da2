import Foundation
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The namespace CONNECT is bounded by the manager's `connectTimeout`, like the Engine.IO open.
/// Before, a server that opened the session but never answered the CONNECT (a hung auth hook,
/// a namespace it answers under another name) left `connect()` waiting for good, and `sio emit
/// --connect-timeout` never ended.
@Suite struct NamespaceConnectTimeoutTests {
    /// `connect()` fails with the CONNECT to `namespace` unanswered.
    static func expectUnanswered(_ socket: Socket, _ namespace: String) async {
        await #expect {
            try await withTimeout(30, "connect() to \(namespace), which no answer reaches") { try await socket.connect() }
        } throws: { error in
            guard case SocketIOError.connectionFailed(let why) = error else { return false }
            return why.hasPrefix("the server did not answer the CONNECT to namespace \(namespace) within")
        }
    }

    @Test func anUnansweredConnectFailsAfterTheTimeoutAndALateAcceptIsLeftAtOnce() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let serverDisconnects = AsyncStream.makeStream(of: ServerDisconnectReason.self)
        let harness = try await EmbeddedHarness.start()
        let slow = harness.server.namespace("/slow")
        slow.use { _ in
            for await _ in gate.stream { return }
        }
        slow.onConnection { socket in
            socket.onDisconnect { reason in serverDisconnects.continuation.yield(reason) }
        }
        var configuration = Manager.Configuration()
        configuration.connectTimeout = .seconds(1)
        let manager = try Manager(url: harness.url, configuration: configuration)
        // `/` keeps the session open throughout (without it, the manager closes the session
        // when `/slow` gives up, and the late accept has no connection to come on).
        let root = manager.socket(namespace: "/")
        try await withTimeout(30, "connecting /") { try await root.connect() }
        let socket = manager.socket(namespace: "/slow")
        await Self.expectUnanswered(socket, "/slow")
        #expect(!socket.connected)

        // The server accepts after all: the client leaves the namespace at once.
        gate.continuation.yield()
        let reason = try await withTimeout(30, "the late socket's disconnect on the server") {
            await serverDisconnects.stream.first { _ in true }
        }
        #expect(reason == .clientNamespaceDisconnect)
        #expect(!socket.connected)

        // The session itself is fine.
        #expect(root.connected)
        #expect(try await root.emitWithAck("ack", 1) == [1])
        await manager.close()
        await harness.stop()
    }

    /// `sio emit --namespace '/?x=1'`: our server reads `?x=1` as a protocol v4 CONNECT query and
    /// answers for `/`, which no socket of this client waits for. It used to hang past
    /// `--connect-timeout`; now it ends when that passes.
    @Test func aConnectAnsweredUnderAnotherNameEndsAtTheTimeout() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = Manager.Configuration()
        configuration.connectTimeout = .seconds(1)
        configuration.reconnection = false
        let manager = try Manager(url: harness.url, configuration: configuration)
        let socket = manager.socket(namespace: "/?x=1")
        await Self.expectUnanswered(socket, "/?x=1")
        await manager.close()
        await harness.stop()
    }
}
