import Foundation
import Logging
import SocketIOServer
import SwitchboardDemo
import SwitchboardTestSupport
import Testing

/// The demo's failover channel endpoint over plain WebSocket (`/ws?channel=ID`), hand-driven:
/// the resume handshake, numbering and acknowledgements, and bad input — each refused with an
/// `error` envelope and a close, while other channels carry on.
@Suite("Reliable channel endpoint")
struct ReliableChannelEndpointTests {
    func withDemo(_ body: (Int) async throws -> Void) async throws {
        try await withDemoApplication(body)
    }

    static func open(_ port: Int, channel: String, received: Int = 0) async throws -> RawWebSocket {
        let socket = try await RawWebSocket.open(port: port, target: "/ws?channel=\(channel)")
        try socket.send(text: #"{"type":"resume","channel":"\#(channel)","received":\#(received)}"#)
        return socket
    }

    @Test("resume, numbered messages both ways, and a resume elsewhere gets what was missed")
    func resumeAndNumbering() async throws {
        try await withDemo { port in
            let first = try await Self.open(port, channel: "c1")
            #expect(try await first.nextText() == #"{"type":"resumed","channel":"c1","received":0}"#)
            try first.send(text: #"{"type":"request","event":"echo","data":"hi","id":0,"seq":1}"#)
            #expect(try await first.nextText() == #"{"type":"ack","seq":1}"#, "acknowledged first, piggybacked on the answer")
            #expect(try await first.nextText() == #"{"type":"event","event":"echo","data":"hi","seq":1}"#)
            #expect(try await first.nextText() == #"{"type":"reply","id":0,"data":["hi"],"seq":2}"#)
            try first.send(text: #"{"type":"event","event":"nobody-listens","seq":2}"#)
            #expect(try await first.nextText() == #"{"type":"ack","seq":2}"#, "alone, acknowledged after the short delay")
            // The client got both but acknowledges nothing, and comes back on a new connection
            // having delivered only the first: the server sends the second again, once.
            let second = try await Self.open(port, channel: "c1", received: 1)
            #expect(try await second.nextText() == #"{"type":"resumed","channel":"c1","received":2}"#)
            #expect(try await second.nextText() == #"{"type":"reply","id":0,"data":["hi"],"seq":2}"#)
            try await first.waitForClose()
            // A repeat of what the server already delivered is dropped and acknowledged.
            try second.send(text: #"{"type":"request","event":"echo","data":"hi","id":0,"seq":1}"#)
            #expect(try await second.nextText() == #"{"type":"ack","seq":2}"#)
        }
    }

    @Test("bad input: an error envelope, then the close; the channel resumes and others carry on",
          arguments: [
            (#"{"type":"event","event":"echo","data":1,"seq":5}"#, "message 5 arrived where 1 was due"),
            (#"{"type":"ack","seq":9}"#, "acknowledgement of 9, but the last message sent was 0"),
            (#"{"type":"event","event":"echo","data":1}"#, "a message on a channel needs its seq"),
            (#"not json"#, "malformed envelope"),
            (#"{"type":"resumed","channel":"c","received":0}"#, "resumed is the server's to send"),
          ])
    func badInput(_ input: String, _ why: String) async throws {
        try await withDemo { port in
            let other = try await Self.open(port, channel: "other")
            _ = try await other.nextText()
            let socket = try await Self.open(port, channel: "c2")
            _ = try await socket.nextText()
            try socket.send(text: input)
            let error = try await socket.nextText()
            #expect(error.hasPrefix(#"{"type":"error","message":"#) && error.contains(why), "\(error)")
            try await socket.waitForClose()
            // The channel itself is fine: it resumes on a new connection.
            let again = try await Self.open(port, channel: "c2")
            #expect(try await again.nextText() == #"{"type":"resumed","channel":"c2","received":0}"#)
            try other.send(text: #"{"type":"request","event":"ack","data":"still","id":1,"seq":1}"#)
            #expect(try await other.nextText() == #"{"type":"ack","seq":1}"#)
            #expect(try await other.nextText() == #"{"type":"reply","id":1,"data":["still"],"seq":1}"#)
        }
    }

    @Test("a message before any resume is refused; a resume of a channel the server does not hold is answered, and a new channel may follow")
    func refusals() async throws {
        try await withDemo { port in
            let early = try await RawWebSocket.open(port: port, target: "/ws?channel=x")
            try early.send(text: #"{"type":"event","event":"echo","data":1,"seq":1}"#)
            #expect(try await early.nextText() == #"{"type":"error","message":"resume a channel first"}"#)
            try await early.waitForClose()
            let unknown = try await Self.open(port, channel: "gone", received: 3)
            #expect(try await unknown.nextText() == #"{"type":"error","message":"unknown or expired channel \"gone\""}"#)
            // The transport stays open for a new channel.
            try unknown.send(text: #"{"type":"resume","channel":"new","received":0}"#)
            #expect(try await unknown.nextText() == #"{"type":"resumed","channel":"new","received":0}"#)
        }
    }
}
