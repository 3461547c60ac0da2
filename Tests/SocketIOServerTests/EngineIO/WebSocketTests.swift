import Foundation
import SocketIOProtocol
import SocketIOServer
import Testing

@Suite("Engine.IO over WebSocket")
struct WebSocketTests {
    @Test("WebSocket-only open: first frame 0{…} with no upgrades; 40 → 40{sid}; echo and ack")
    func webSocketOnly() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            let handshake = try #require(client.handshake)
            #expect(handshake["upgrades"] == [])
            #expect(handshake["maxPayload"] == 1_000_000)
            let reply = try await client.connect()
            #expect(reply["sid"]?.stringValue?.count == 20)
            #expect(reply["pid"] == nil)
            try client.send(#"421["echo","x",{"y":2}]"#)
            #expect(try await client.next() == #"42["echo","x",{"y":2}]"#)
            #expect(try await client.next() == #"431["x",{"y":2}]"#)
            client.socket.drop()
        }
    }

    @Test("binary frames: attachments arrive and leave as binary WebSocket messages")
    func binary() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect()
            try client.send(#"451-7["binary",{"_placeholder":true,"num":0}]"#)
            try client.socket.send(binary: [1, 2, 3])
            #expect(try await client.next() == #"451-["binary",{"_placeholder":true,"num":0}]"#)
            #expect(try await client.socket.next() == .binary([1, 2, 3]))
            #expect(try await client.next() == #"461-7[{"_placeholder":true,"num":0}]"#)
            #expect(try await client.socket.next() == .binary([1, 2, 3]))
            client.socket.drop()
        }
    }
}
