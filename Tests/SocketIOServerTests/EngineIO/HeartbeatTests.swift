import Foundation
import SocketIOProtocol
import SocketIOServer
import Testing

@Suite("Heartbeat")
struct HeartbeatTests {
    @Test("the server pings every pingInterval; a pong keeps the session; silence closes it with ping timeout")
    func pingTimeout() async throws {
        try await DemoServer.with({ $0.pingInterval = .milliseconds(200); $0.pingTimeout = .seconds(5) }) { demo in
            // Engine-level only: with a 100 ms interval a ping may precede a CONNECT reply, so
            // no namespace is joined here.
            let client = try await EngineWebSocket.open(port: demo.port)
            #expect(try await client.next("a ping") == "2")
            try client.send("3")
            #expect(try await client.next("the next ping") == "2")
            // No answer now: the server gives up after pingTimeout.
            try await client.socket.waitForClose()
            let sid = try #require(client.sid)
            #expect(try await demo.events.closeReason(of: sid) == "ping timeout")
            try await demo.assertServes()
        }
    }

    /// The 60 s pingTimeout is room for a test starved of CPU (the whole suite in parallel on
    /// two cores, python peers starting): 5 s was once not enough between a ping and its pong.
    @Test("over polling the ping releases the held GET and the pong is POSTed")
    func pollingHeartbeat() async throws {
        try await DemoServer.with({ $0.pingInterval = .milliseconds(100); $0.pingTimeout = .seconds(60) }) { demo in
            let client = try await PollingClient.open(port: demo.port)
            #expect(try await client.receive(1) == ["2"])
            try await client.post(["3"])
            #expect(try await client.receive(1) == ["2"])
        }
    }

    /// The reference server forgets a session that missed its pong: the next GET is 400.
    @Test("after a ping timeout on polling the next GET is answered 400, unknown session")
    func pollingPingTimeoutForgetsTheSession() async throws {
        try await DemoServer.with({ $0.pingInterval = .milliseconds(100); $0.pingTimeout = .milliseconds(100) }) { demo in
            let client = try await PollingClient.open(port: demo.port)
            // No GET, no pong: the server pings into the buffer and gives up after pingTimeout.
            #expect(try await demo.events.closeReason(of: client.sid) == "ping timeout")
            let reply = try await client.get()
            #expect(reply.status == 400, "\(reply)")
            #expect(reply.text == #"{"code":1,"message":"Session ID unknown"}"#)
            // New sessions are still served (by polling: a WebSocket client that is slow to
            // pong on a loaded machine would itself time out under these 100 ms settings).
            let next = try await PollingClient.open(port: demo.port)
            #expect(next.sid != client.sid)
        }
    }

    @Test("a ping from the client is the wrong direction in v4: the session closes")
    func clientPing() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            try client.send("2")
            try await client.socket.waitForClose()
            try await demo.assertServes()
        }
    }
}
