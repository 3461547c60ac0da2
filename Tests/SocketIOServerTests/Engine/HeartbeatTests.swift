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

    @Test("over polling the ping releases the held GET and the pong is POSTed")
    func pollingHeartbeat() async throws {
        try await DemoServer.with({ $0.pingInterval = .milliseconds(100); $0.pingTimeout = .seconds(5) }) { demo in
            let client = try await PollingClient.open(port: demo.port)
            #expect(try await client.receive(1) == ["2"])
            try await client.post(["3"])
            #expect(try await client.receive(1) == ["2"])
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
