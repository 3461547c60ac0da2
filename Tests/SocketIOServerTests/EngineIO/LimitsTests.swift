import Foundation
import SocketIOProtocol
import SocketIOServer
import Testing

/// Bounded resources: a client that does not read is disconnected instead of growing memory,
/// and nobody else notices.
@Suite("Limits")
struct LimitsTests {
    static let chunk = JSONValue.string(String(repeating: "z", count: 64 * 1024))

    @Test("a WebSocket client that stops reading is disconnected once maxQueuedBytes wait for it")
    func slowWebSocketClient() async throws {
        try await DemoServer.with({ $0.maxQueuedBytes = 256 * 1024 }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            let id = try #require(try await client.connect()["sid"]?.stringValue)
            client.socket.connection.pauseReading()
            let socket = try #require(demo.server.namespace("/").socket(id: id))
            // Far more than kernel buffers hold: the queue must overflow.
            var sent = 0
            while sent < 2_000, socket.emit("flood", Self.chunk) { sent += 1 }
            #expect(sent < 2_000)
            let sid = try #require(client.sid)
            #expect(try await demo.events.closeReason(of: sid) == "transport close")
            try await demo.assertServes()
            client.socket.drop()
        }
    }

    @Test("a polling client that stops polling is disconnected once maxQueuedBytes wait for it")
    func pollingBufferLimit() async throws {
        try await DemoServer.with({ $0.maxQueuedBytes = 256 * 1024 }) { demo in
            let client = try await PollingClient.open(port: demo.port)
            try await client.post(["40"])
            let connect = try await client.receive(1)
            let id = try #require(try JSONValue(parsing: String(connect[0].dropFirst(2)))["sid"]?.stringValue)
            let socket = try #require(demo.server.namespace("/").socket(id: id))
            var sent = 0
            while sent < 100, socket.emit("flood", Self.chunk) { sent += 1 }
            #expect(sent < 100)
            #expect(try await demo.events.closeReason(of: client.sid).hasPrefix("transport error"))
            try await demo.assertServes()
        }
    }

    @Test("emitWithAck: typed timeout, and a limit on pending acks per socket")
    func pendingAcks() async throws {
        try await DemoServer.with({ $0.maxPendingAcks = 2 }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            let id = try #require(try await client.connect()["sid"]?.stringValue)
            let socket = try #require(demo.server.namespace("/").socket(id: id))
            // The client never answers.
            let first = Task { try await socket.emitWithAck("question", "1", timeout: .seconds(30)) }
            let second = Task { try await socket.emitWithAck("question", "2", timeout: .seconds(30)) }
            _ = try await client.next("the first question")
            _ = try await client.next("the second question")
            #expect(socket.pendingAckCount == 2)
            await #expect(throws: SocketIOServerError.tooManyPendingAcks(2)) {
                try await socket.emitWithAck("question", "3", timeout: .seconds(30))
            }
            first.cancel()
            second.cancel()
            await #expect(throws: SocketIOServerError.ackTimeout) { try await first.value }
            await #expect(throws: SocketIOServerError.ackTimeout) { try await second.value }
            await #expect(throws: SocketIOServerError.ackTimeout) {
                try await socket.emitWithAck("question", "4", timeout: .milliseconds(50))
            }
            // A late answer is ignored.
            try client.send(#"430["too late"]"#)
            try await demo.assertServes()
            client.socket.drop()
        }
    }

    @Test("a session that joins no namespace within connectTimeout is closed")
    func connectTimeout() async throws {
        try await DemoServer.with({ $0.connectTimeout = .milliseconds(200) }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            try await client.socket.waitForClose()
            #expect(try await demo.events.closeReason(of: try #require(client.sid)) == "forced close")
        }
    }
}
