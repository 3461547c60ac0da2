import Foundation
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Bad input ends in a clean error or close, never a crash or a hang, and the server keeps
/// serving other clients.
@Suite("Bad input")
struct BadInputTests {
    static let eio3Body = #"{"code":5,"message":"Unsupported protocol version"}"#

    @Test("EIO=3 and a missing EIO are refused with code 5, over polling and WebSocket")
    func unsupportedVersion() async throws {
        try await DemoServer.with { demo in
            for target in ["/socket.io/?EIO=3&transport=polling", "/socket.io/?transport=polling"] {
                let reply = try await HTTPClient.get(port: demo.port, target)
                #expect(reply.status == 400)
                #expect(reply.headers["content-type"] == "application/json")
                #expect(reply.text == Self.eio3Body)
            }
            let ws = try await RawWebSocket.connect(port: demo.port, target: "/socket.io/?EIO=3&transport=websocket")
            #expect(throws: UnexpectedReply.self) { try ws.get() }
            try await demo.assertServes()
        }
    }

    @Test("the JS server's error codes: unknown transport 0, unknown sid 1, bad handshake method 2")
    func errorCodes() async throws {
        try await DemoServer.with { demo in
            let unknownTransport = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=carrier-pigeon")
            #expect(unknownTransport.status == 400)
            #expect(unknownTransport.text == #"{"code":0,"message":"Transport unknown"}"#)
            let noTransport = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4")
            #expect(noTransport.text == #"{"code":0,"message":"Transport unknown"}"#)
            let unknownSid = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=polling&sid=nope")
            #expect(unknownSid.status == 400)
            #expect(unknownSid.text == #"{"code":1,"message":"Session ID unknown"}"#)
            let postHandshake = try await HTTPClient.post(port: demo.port, "/socket.io/?EIO=4&transport=polling", body: "40")
            #expect(postHandshake.status == 400)
            #expect(postHandshake.text == #"{"code":2,"message":"Bad handshake method"}"#)
            let plainGetForWebSocket = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=websocket")
            #expect(plainGetForWebSocket.text == #"{"code":3,"message":"Bad request"}"#)
            #expect(try await HTTPClient.get(port: demo.port, "/elsewhere").status == 404)
            try await demo.assertServes()
        }
    }

    @Test("a second GET while one is held: 400 for it, 1 for the first, the session is gone")
    func duplicateGet() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            let first = Task { try await client.get() }
            let second = Task { try await client.get() }
            let replies = try await withTimeout(10, "both GETs") { [try await first.value, try await second.value] }
            #expect(replies.map(\.status).sorted() == [200, 400])
            #expect(replies.first { $0.status == 200 }?.text == "1")
            #expect(try await demo.events.closeReason(of: client.sid).hasPrefix("transport error"))
            #expect(try await client.get().status == 400)
            try await demo.assertServes()
        }
    }

    @Test("garbage: a malformed POST body closes the session; a binary body and non-HTTP bytes are refused")
    func garbage() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            let reply = try await client.post(["\u{1}not a packet"])
            #expect(reply.status == 400)
            #expect(try await demo.events.closeReason(of: client.sid).hasPrefix("parse error"))
            // Forgotten at once, as the reference server does (the engine.io-protocol suite's
            // "closes the session upon invalid packet format"): the next GET is 400.
            let next = try await client.get()
            #expect(next.status == 400)
            #expect(next.text == #"{"code":1,"message":"Session ID unknown"}"#)

            let binaryBody = try await HTTPClient.request(
                "POST", port: demo.port, target: try await PollingClient.open(port: demo.port).target,
                headers: [("Content-Type", "application/octet-stream")], body: [1, 2, 3]
            )
            #expect(binaryBody.status == 400)

            // Not HTTP at all. (Hummingbird's upgrade-capable pipeline leaves such a connection
            // open until the client closes it; what matters here is that nobody else notices.)
            let raw = try RawConnection.connect(port: demo.port)
            try raw.write("\u{0}\u{1}\u{2} HELLO ??\r\n\r\n")
            try await demo.assertServes()
            raw.close()
        }
    }

    @Test("malformed packets over WebSocket close that session only", arguments: [
        "x",                                       // not an Engine.IO packet
        "4x",                                      // not a Socket.IO packet
        "40[]",                                    // CONNECT payload must be an object
        #"42["echo"]"#,                            // an event for a namespace not joined
        #"451-["echo",{"_placeholder":true,"num":0}]|"#,  // text while an attachment is due
    ])
    func malformedWebSocket(packet: String) async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            if packet.hasSuffix("|") {
                _ = try await client.connect()
                try client.send(String(packet.dropLast()))
                try client.send(#"42["echo","text instead of binary"]"#)
            } else {
                try client.send(packet)
            }
            try await client.socket.waitForClose()
            let sid = try #require(client.sid)
            let reason = try await demo.events.closeReason(of: sid)
            #expect(reason.hasPrefix("parse error"))
            try await demo.assertServes()
        }
    }

    @Test("a binary message with no binary packet pending closes the session")
    func strayBinary() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect()
            try client.socket.send(binary: [9, 9])
            try await client.socket.waitForClose()
            try await demo.assertServes()
        }
    }

    @Test("unknown namespace: 44/<nsp>,{\"message\":\"Invalid namespace\"}; the session stays usable")
    func unknownNamespace() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            try client.send("40/nope,")
            #expect(try await client.next() == #"44/nope,{"message":"Invalid namespace"}"#)
            let reply = try await client.connect()
            #expect(reply["sid"] != nil)
            client.socket.drop()
        }
    }

    @Test("oversized payloads: a POST past maxPayload gets 413, a WebSocket message closes the connection")
    func oversized() async throws {
        try await DemoServer.with({ $0.maxPayload = 1_000 }) { demo in
            let client = try await PollingClient.open(port: demo.port)
            #expect(client.handshake["maxPayload"] == 1_000)
            let big = #"42["echo",""# + String(repeating: "x", count: 2_000) + #""]"#
            #expect(try await client.post([big]).status == 413)
            // The session survives a refused POST.
            try await client.post(["40"])
            #expect(try await client.receive(1).first?.hasPrefix("40{") == true)

            let ws = try await EngineWebSocket.open(port: demo.port)
            _ = try await ws.connect()
            try ws.send(big)
            try await ws.socket.waitForClose()
            try await demo.assertServes()
        }
    }
}
