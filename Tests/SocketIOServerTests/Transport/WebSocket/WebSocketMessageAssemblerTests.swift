import Foundation
import SwitchboardCore
import NIOCore
import NIOWebSocket
@testable import SocketIOServer
import Testing

@Suite("Server WebSocket: frames to messages")
struct WebSocketMessageAssemblerTests {
    private static func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true, maskKey: WebSocketMaskingKey? = nil) -> WebSocketFrame {
        var data = ByteBuffer(string: text)
        if let maskKey { data.webSocketMask(maskKey) }
        return WebSocketFrame(fin: fin, opcode: opcode, maskKey: maskKey, data: data)
    }

    @Test("a whole text or binary frame is a message; a masked one is unmasked")
    func wholeFrames() {
        var assembler = WebSocketMessageAssembler(maxSize: 100)
        #expect(assembler.receive(Self.frame(.text, "héllo")) == .deliver(.text("héllo")))
        #expect(assembler.receive(Self.frame(.binary, "\u{1}\u{2}")) == .deliver(.binary(Data([1, 2]))))
        let key = WebSocketMaskingKey([7, 8, 9, 10])
        #expect(assembler.receive(Self.frame(.text, "masked", maskKey: key)) == .deliver(.text("masked")))
    }

    @Test("fragments join into one message, with control frames between them")
    func fragments() {
        var assembler = WebSocketMessageAssembler(maxSize: 100)
        #expect(assembler.receive(Self.frame(.text, "hel", fin: false)) == .none)
        #expect(assembler.receive(Self.frame(.ping, "p")) == .pong(ByteBuffer(string: "p")))
        #expect(assembler.receive(Self.frame(.continuation, "lo ", fin: false)) == .none)
        #expect(assembler.receive(Self.frame(.continuation, "world")) == .deliver(.text("hello world")))
        #expect(assembler.receive(Self.frame(.binary, "a", fin: false)) == .none)
        #expect(assembler.receive(Self.frame(.continuation, "b")) == .deliver(.binary(Data("ab".utf8))))
    }

    @Test("the size limit counts every fragment: 1009 past it, a message at it passes")
    func sizeLimit() {
        var exact = WebSocketMessageAssembler(maxSize: 6)
        #expect(exact.receive(Self.frame(.text, "abc", fin: false)) == .none)
        #expect(exact.receive(Self.frame(.continuation, "def")) == .deliver(.text("abcdef")))

        var over = WebSocketMessageAssembler(maxSize: 6)
        #expect(over.receive(Self.frame(.text, "abcd", fin: false)) == .none)
        guard case .fail(1009, _) = over.receive(Self.frame(.continuation, "efg")) else {
            Issue.record("a fragmented message over the limit is not refused")
            return
        }
        #expect(over.finished)
        #expect(over.receive(Self.frame(.text, "ok")) == .none, "nothing after the failure")

        var single = WebSocketMessageAssembler(maxSize: 6)
        guard case .fail(1009, _) = single.receive(Self.frame(.binary, "1234567")) else {
            Issue.record("a frame over the limit is not refused")
            return
        }
    }

    @Test("broken framing rules close with 1002", arguments: [
        "continuation first", "new message inside one", "fragmented ping", "long ping", "reserved bit", "unknown opcode",
        "1-byte close status", "close status 1005", "close status 2000",
    ])
    func protocolErrors(_ rule: String) {
        var assembler = WebSocketMessageAssembler(maxSize: 1000)
        let action: WebSocketMessageAssembler.Action
        switch rule {
        case "continuation first":
            action = assembler.receive(Self.frame(.continuation, "x"))
        case "new message inside one":
            _ = assembler.receive(Self.frame(.text, "a", fin: false))
            action = assembler.receive(Self.frame(.text, "b"))
        case "fragmented ping":
            action = assembler.receive(Self.frame(.ping, "x", fin: false))
        case "long ping":
            action = assembler.receive(Self.frame(.ping, String(repeating: "x", count: 126)))
        case "1-byte close status":
            action = assembler.receive(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(bytes: [3])))
        case "close status 1005", "close status 2000":
            var payload = ByteBuffer()
            payload.writeInteger(UInt16(rule.hasSuffix("1005") ? 1005 : 2000))
            action = assembler.receive(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))
        case "reserved bit":
            action = assembler.receive(WebSocketFrame(fin: true, rsv1: true, opcode: .text, data: ByteBuffer(string: "x")))
        default:
            action = assembler.receive(WebSocketFrame(fin: true, opcode: WebSocketOpcode(encodedWebSocketOpcode: 0x3)!, data: ByteBuffer()))
        }
        guard case .fail(1002, _) = action else {
            Issue.record("\(rule): \(action)")
            return
        }
    }

    @Test("a close frame gives the client's code (or none); a pong is ignored")
    func closeAndPong() {
        var assembler = WebSocketMessageAssembler(maxSize: 100)
        #expect(assembler.receive(Self.frame(.pong, "x")) == .none)
        var payload = ByteBuffer()
        payload.writeInteger(UInt16(4000))
        payload.writeString("bye")
        #expect(assembler.receive(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)) == .peerClosed(code: 4000))
        #expect(assembler.receive(Self.frame(.text, "late")) == .none, "nothing after the close")

        var empty = WebSocketMessageAssembler(maxSize: 100)
        #expect(empty.receive(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer())) == .peerClosed(code: nil))
    }
}
