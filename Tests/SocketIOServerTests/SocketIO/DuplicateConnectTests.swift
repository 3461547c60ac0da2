import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// A client sends CONNECT once per namespace (socket.io closes one that connects twice to a
/// namespace it joined: "invalid state"). Two CONNECTs to one namespace can also be handled at
/// once on one session: one in a POST whose auth hook still runs, one on the WebSocket the
/// session upgraded to meanwhile. The second used to make a socket of its own, which the first
/// then replaced in the session's table: the session closed without it, and it stayed in its
/// namespace for ever.
@Suite(.timeLimit(.minutes(1))) struct DuplicateConnectTests {
    @Test("a CONNECT to a namespace whose CONNECT is still handled, on the WebSocket the session upgraded to: no socket outlives the session")
    func connectWhileConnecting() async throws {
        let (arrived, release) = (Gate(), Gate())
        let calls = NIOLockedValueBox(0)
        let setup: (SocketIOServer) -> Void = { server in
            server.namespace("/chat").use { _ in
                // The first CONNECT waits here; a later one goes through.
                guard calls.withLockedValue({ $0 += 1; return $0 }) == 1 else { return }
                arrived.open()
                await release.wait()
            }
        }
        try await DemoServer.with(installingDemo: false, setup: setup) { demo in
            defer { release.open() }
            let client = try await PollingClient.open(port: demo.port)
            let sid = client.sid
            let post = Task { try await client.post(["40/chat,"]) }
            try await withTimeout(10, "the first CONNECT in the auth hook") { await arrived.wait() }

            let ws = try await RawWebSocket.open(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket&sid=\(sid)")
            try ws.send(text: "2probe")
            #expect(try await ws.nextText() == "3probe")
            try ws.send(text: "5")
            try ws.send(text: "40/chat,")
            // The second CONNECT is handled: it joined (a socket connects) or closed the session.
            try await demo.events.wait("the second CONNECT handled") { event in
                if case .socketConnected("/chat", _, sid, _) = event { return true }
                if case .sessionClosed(sid, _) = event { return true }
                return false
            }
            release.open()
            _ = try await withTimeout(10, "the first CONNECT handled") { try? await post.value }
            let connected = demo.events.all.compactMap { event -> String? in
                if case .socketConnected("/chat", let id, sid, _) = event { return id }
                return nil
            }
            #expect(connected.count <= 1, "one socket per namespace and session: \(connected)")

            ws.drop()
            _ = try await demo.events.closeReason(of: sid)
            // Every socket reported connected leaves with its session (a ghost never does).
            for id in connected {
                try await demo.events.wait("socket \(id) leaves with its session", within: 5) { event in
                    if case .socketDisconnected("/chat", id, _) = event { return true }
                    return false
                }
            }
            #expect(demo.server.namespace("/chat").sockets.isEmpty)
        }
    }
}
