import Foundation
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Engine.IO v3 on the wire, with `allowEIO3`: the length-prefixed polling payloads (text, and the
/// binary format for clients without `b64=1`), client pings answered, a client pong refused,
/// binary WebSocket frames with their type byte, and `/` joined at once (Socket.IO protocol v4).
@Suite("Engine.IO v3 server")
struct EngineV3Tests {
    static func withServer(_ body: (DemoServer) async throws -> Void) async throws {
        try await DemoServer.with({ $0.allowEIO3 = true }, body)
    }

    static let polling = "/socket.io/?EIO=3&transport=polling"

    /// A v3 handshake: its body parsed, the sid.
    static func open(_ port: Int, query: String = "") async throws -> (sid: String, packets: [EnginePacket]) {
        let reply = try await HTTPClient.get(port: port, polling + query)
        #expect(reply.status == 200)
        let packets = try PollingPayload.decode(reply.text, version: .v3)
        guard case .open(let json)? = packets.first, let sid = try JSONValue(parsing: json)["sid"]?.stringValue else {
            throw UnexpectedReply(reply: reply)
        }
        return (sid, packets)
    }

    static func get(_ port: Int, _ sid: String) async throws -> HTTPReply {
        try await HTTPClient.get(port: port, "\(polling)&sid=\(sid)")
    }

    @Test func theHandshakeIsLengthPrefixedAndSlashIsJoinedAtOnce() async throws {
        try await Self.withServer { demo in
            let (sid, packets) = try await Self.open(demo.port)
            #expect(packets.count == 1)
            let next = try await Self.get(demo.port, sid)
            #expect(next.text == "2:40", "the server joins `/` unasked: CONNECT without a payload")
        }
    }

    @Test func aClientPingIsAnsweredAndAClientPongClosesTheSession() async throws {
        try await Self.withServer { demo in
            let (sid, _) = try await Self.open(demo.port)
            _ = try await Self.get(demo.port, sid)  // 2:40
            let ping = try await HTTPClient.post(port: demo.port, "\(Self.polling)&sid=\(sid)", body: "6:2hello")
            #expect(ping.status == 200)
            #expect(try await Self.get(demo.port, sid).text == "6:3hello")
            _ = try await HTTPClient.post(port: demo.port, "\(Self.polling)&sid=\(sid)", body: "1:3")
            #expect(try await demo.events.closeReason(of: sid) == "transport error: invalid heartbeat direction")
        }
    }

    @Test func binaryBodiesBothWaysWithoutB64AndBase64RecordsWithIt() async throws {
        try await Self.withServer { demo in
            // python-engineio 3.x's client POSTs the binary format: an event with one attachment.
            let (sid, _) = try await Self.open(demo.port)
            _ = try await Self.get(demo.port, sid)
            let event = Data(#"451-["binary",{"_placeholder":true,"num":0}]"#.utf8)
            var body = Data([0]) + Data(String(event.count).utf8.map { $0 - 48 }) + Data([0xFF]) + event
            body += Data([1, 4, 0xFF, 4, 1, 2, 3])  // binary record: type byte 4, then 1 2 3
            let post = try await HTTPClient.request("POST", port: demo.port, target: "\(Self.polling)&sid=\(sid)",
                                                    headers: [("Content-Type", "application/octet-stream")], body: Array(body))
            #expect(post.status == 200)
            let echo = try await Self.get(demo.port, sid)
            #expect(echo.headers["content-type"] == "application/octet-stream")
            let packets = try PollingPayload.decodeBinaryV3(Data(echo.body))
            #expect(packets == [.message(#"51-["binary",{"_placeholder":true,"num":0}]"#), .binaryMessage(Data([1, 2, 3]))])

            // With b64=1 the same echo comes as text, the attachment as `b4` + base64.
            let (sid64, _) = try await Self.open(demo.port, query: "&b64=1")
            _ = try await Self.get(demo.port, sid64)
            let text = #"451-["binary",{"_placeholder":true,"num":0}]"#
            let post64 = try await HTTPClient.post(port: demo.port, "\(Self.polling)&b64=1&sid=\(sid64)",
                                                   body: "\(text.utf16.count):\(text)6:b4AQID")
            #expect(post64.status == 200)
            let echo64 = try await HTTPClient.get(port: demo.port, "\(Self.polling)&b64=1&sid=\(sid64)")
            #expect(echo64.headers["content-type"]?.hasPrefix("text/plain") == true)
            #expect(echo64.text == "\(text.utf16.count):\(text)6:b4AQID")
        }
    }

    @Test func overWebSocketBinaryFramesCarryTheirTypeByte() async throws {
        try await Self.withServer { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/socket.io/?EIO=3&transport=websocket")
            #expect(try await socket.nextText("the open packet").hasPrefix("0{"))
            #expect(try await socket.nextText("the join of /") == "40")
            try socket.send(text: #"451-["binary",{"_placeholder":true,"num":0}]"#)
            try socket.send(binary: [4, 9, 8, 7])
            #expect(try await socket.nextText("the echo") == #"451-["binary",{"_placeholder":true,"num":0}]"#)
            #expect(try await socket.next() == .binary([4, 9, 8, 7]))
            try socket.send(text: "2probe-not")  // a v3 ping with data
            #expect(try await socket.nextText("the pong") == "3probe-not")
            socket.drop()
        }
    }

    /// The type byte goes, and the attachment is its own `Data` from index 0, as over polling
    /// (a slice from index 1 used to reach the handler).
    @Test func overWebSocketABinaryAttachmentReachesTheHandlerFromIndexZero() async throws {
        try await DemoServer.with({ $0.allowEIO3 = true }, installingDemo: false, setup: { server in
            server.namespace("/").onConnection { socket in
                socket.on("bytes") { event in
                    guard case .binary(let data)? = event.items.first else { return }
                    socket.emit("seen", .number(Double(data.startIndex)), .array(data.map { .number(Double($0)) }))
                }
            }
        }) { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/socket.io/?EIO=3&transport=websocket")
            #expect(try await socket.nextText("the open packet").hasPrefix("0{"))
            #expect(try await socket.nextText("the join of /") == "40")
            try socket.send(text: #"451-["bytes",{"_placeholder":true,"num":0}]"#)
            try socket.send(binary: [4, 9, 8, 7])
            let seen = try await socket.nextText("what the handler saw")
            #expect(seen == #"42["seen",0,[9,8,7]]"#)
            socket.drop()
        }
    }
}
