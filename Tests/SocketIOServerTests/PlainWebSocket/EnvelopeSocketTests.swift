import Foundation
import Logging
import SocketIOServer
import SwitchboardDemo
import SwitchboardTestSupport
import Testing

/// The demo's `/ws`: the JSON envelope, over a hand-driven WebSocket.
@Suite("Envelope socket (demo /ws)")
struct EnvelopeSocketTests {
    func withDemo(_ body: (Int) async throws -> Void) async throws {
        try await withDemoApplication(body)
    }

    @Test("a request is answered by a reply with its id; echo also pushes an event")
    func requestAndReply() async throws {
        try await withDemo { port in
            let socket = try await RawWebSocket.open(port: port, target: "/ws")
            try socket.send(text: #"{"type":"request","event":"echo","data":{"a":[1,"x"]},"id":7}"#)
            #expect(try await socket.nextText() == #"{"type":"event","event":"echo","data":{"a":[1,"x"]}}"#)
            #expect(try await socket.nextText() == #"{"type":"reply","id":7,"data":[{"a":[1,"x"]}]}"#)
            try socket.send(text: #"{"type":"request","event":"ack","data":"hi","id":8}"#)
            #expect(try await socket.nextText() == #"{"type":"reply","id":8,"data":["hi"]}"#)
        }
    }

    @Test("pushes: later after a delay, burst in order, broadcast to every /ws client")
    func pushes() async throws {
        try await withDemo { port in
            let first = try await RawWebSocket.open(port: port, target: "/ws")
            let second = try await RawWebSocket.open(port: port, target: "/ws")
            try first.send(text: #"{"type":"event","event":"later","data":[5,"soon"]}"#)
            #expect(try await first.nextText() == #"{"type":"event","event":"later","data":"soon"}"#)
            try first.send(text: #"{"type":"event","event":"burst","data":2}"#)
            #expect(try await first.nextText() == #"{"type":"event","event":"burst-item","data":0}"#)
            #expect(try await first.nextText() == #"{"type":"event","event":"burst-item","data":1}"#)
            #expect(try await first.nextText() == #"{"type":"event","event":"burst-done","data":2}"#)
            // The second socket is registered once it answered something.
            try second.send(text: #"{"type":"request","event":"ack","id":1}"#)
            #expect(try await second.nextText() == #"{"type":"reply","id":1,"data":[null]}"#)
            try first.send(text: #"{"type":"request","event":"broadcast","data":"all","id":2}"#)
            #expect(try await first.nextText() == #"{"type":"event","event":"broadcast","data":"all"}"#)
            #expect(try await first.nextText() == #"{"type":"reply","id":2,"data":[2]}"#)
            #expect(try await second.nextText() == #"{"type":"event","event":"broadcast","data":"all"}"#)
        }
    }

    @Test("bad input gets an error envelope and the connection stays open")
    func badInput() async throws {
        try await withDemo { port in
            let socket = try await RawWebSocket.open(port: port, target: "/ws")
            try socket.send(text: "hello")
            #expect(try await socket.nextText()
                    == #"{"type":"error","message":"malformed envelope: not JSON (JSON error: unexpected character at byte 0)"}"#)
            try socket.send(text: #"{"type":"request","event":"echo"}"#)
            #expect(try await socket.nextText() == #"{"type":"error","message":"malformed envelope: missing \"id\""}"#)
            try socket.send(binary: [1, 2])
            #expect(try await socket.nextText()
                    == #"{"type":"error","message":"malformed envelope: a binary message (envelopes are JSON text)"}"#)
            try socket.send(text: #"{"type":"request","event":"nobody","id":3}"#)
            #expect(try await socket.nextText() == #"{"type":"error","id":3,"message":"no handler for \"nobody\""}"#)
            try socket.send(text: #"{"type":"request","event":"ack","data":true,"id":4}"#)
            #expect(try await socket.nextText() == #"{"type":"reply","id":4,"data":[true]}"#)
        }
    }

    @Test("kick closes the connection")
    func kick() async throws {
        try await withDemo { port in
            let socket = try await RawWebSocket.open(port: port, target: "/ws")
            try socket.send(text: #"{"type":"event","event":"kick"}"#)
            try await socket.waitForClose()
        }
    }
}
