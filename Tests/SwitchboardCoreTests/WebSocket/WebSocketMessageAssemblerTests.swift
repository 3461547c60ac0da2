import Foundation
import NIOCore
import NIOWebSocket
import SwitchboardCore
import Testing

/// RFC 6455 as both ends read it: every rule for the server (its peer masks every frame) and for
/// the client (its peer masks none). The cases follow Autobahn|Testsuite's groups 1–7 at the
/// level of frames (framing, pings, reserved bits, opcodes, fragmentation, UTF-8, close); the
/// byte stream's chopping (how TCP splits frames) is swift-nio's frame decoder's.
@Suite("WebSocket frames to messages, both ends")
struct WebSocketMessageAssemblerTests {
    typealias Role = WebSocketMessageAssembler.Role

    /// A frame as the peer of `role` sends it: masked when it comes from a client.
    static func frame(
        _ role: Role, _ opcode: WebSocketOpcode, _ bytes: [UInt8], fin: Bool = true, rsv1: Bool = false
    ) -> WebSocketFrame {
        var data = ByteBuffer(bytes: bytes)
        let key: WebSocketMaskingKey? = role == .server ? WebSocketMaskingKey([0x37, 0xfa, 0x21, 0x3d]) : nil
        if let key { data.webSocketMask(key) }
        return WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: key, data: data)
    }

    static func frame(_ role: Role, _ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
        frame(role, opcode, Array(text.utf8), fin: fin)
    }

    static func close(_ role: Role, code: UInt16?, reason: [UInt8] = []) -> WebSocketFrame {
        var bytes: [UInt8] = []
        if let code { bytes = [UInt8(code >> 8), UInt8(code & 0xff)] }
        return frame(role, .connectionClose, bytes + reason)
    }

    static let roles: [Role] = [.server, .client]

    @Test("whole text and binary frames are messages (1.1, 1.2)", arguments: roles)
    func wholeFrames(_ role: Role) {
        var assembler = WebSocketMessageAssembler(maxSize: 100_000, role: role)
        #expect(assembler.receive(Self.frame(role, .text, "héllo")) == .deliver(.text("héllo")))
        #expect(assembler.receive(Self.frame(role, .text, "")) == .deliver(.text("")))
        #expect(assembler.receive(Self.frame(role, .binary, [1, 2])) == .deliver(.binary(Data([1, 2]))))
        let big = [UInt8](repeating: 0xfe, count: 65_536)
        #expect(assembler.receive(Self.frame(role, .binary, big)) == .deliver(.binary(Data(big))))
    }

    @Test("fragments join into one message, with control frames between them (5.x)", arguments: roles)
    func fragments(_ role: Role) {
        var assembler = WebSocketMessageAssembler(maxSize: 100, role: role)
        #expect(assembler.receive(Self.frame(role, .text, "hel", fin: false)) == .none)
        #expect(assembler.receive(Self.frame(role, .ping, "p")) == .pong(ByteBuffer(string: "p")))
        #expect(assembler.receive(Self.frame(role, .continuation, "lo ", fin: false)) == .none)
        #expect(assembler.receive(Self.frame(role, .pong, "q")) == .pongReceived(ByteBuffer(string: "q")))
        #expect(assembler.receive(Self.frame(role, .continuation, "world")) == .deliver(.text("hello world")))
        #expect(assembler.receive(Self.frame(role, .binary, [0x61], fin: false)) == .none)
        #expect(assembler.receive(Self.frame(role, .continuation, [0x62])) == .deliver(.binary(Data("ab".utf8))))
    }

    @Test("pings are answered with their payload, up to 125 bytes (2.x)", arguments: roles)
    func pings(_ role: Role) {
        var assembler = WebSocketMessageAssembler(maxSize: 100, role: role)
        #expect(assembler.receive(Self.frame(role, .ping, [])) == .pong(ByteBuffer()))
        let payload = [UInt8](repeating: 0xfe, count: 125)
        #expect(assembler.receive(Self.frame(role, .ping, payload)) == .pong(ByteBuffer(bytes: payload)))
        guard case .fail(1002, _) = assembler.receive(Self.frame(role, .ping, [UInt8](repeating: 0, count: 126))) else {
            Issue.record("a 126-byte ping is refused")
            return
        }
    }

    @Test("the size limit counts every fragment: 1009 past it, a message at it passes", arguments: roles)
    func sizeLimit(_ role: Role) {
        var exact = WebSocketMessageAssembler(maxSize: 6, role: role)
        #expect(exact.receive(Self.frame(role, .text, "abc", fin: false)) == .none)
        #expect(exact.receive(Self.frame(role, .continuation, "def")) == .deliver(.text("abcdef")))

        var over = WebSocketMessageAssembler(maxSize: 6, role: role)
        #expect(over.receive(Self.frame(role, .text, "abcd", fin: false)) == .none)
        guard case .fail(1009, _) = over.receive(Self.frame(role, .continuation, "efg")) else {
            Issue.record("a fragmented message over the limit is not refused")
            return
        }
        #expect(over.finished)
        #expect(over.receive(Self.frame(role, .text, "ok")) == .none, "nothing after the failure")

        var single = WebSocketMessageAssembler(maxSize: 6, role: role)
        guard case .fail(1009, _) = single.receive(Self.frame(role, .binary, [UInt8](repeating: 1, count: 7))) else {
            Issue.record("a frame over the limit is not refused")
            return
        }
    }

    /// Group 3 (reserved bits), 4 (opcodes), 5 (fragmentation), 2.5 and 7.3 (control frames,
    /// close statuses): each closes with 1002.
    @Test("broken framing rules close with 1002", arguments: [
        "continuation first", "new message inside one", "fragmented ping", "fragmented close", "long ping", "reserved bit",
        "reserved bit on a ping", "opcode 3", "opcode 7", "opcode 11", "opcode 15", "1-byte close status",
        "close status 0", "close status 999", "close status 1004", "close status 1005", "close status 1006",
        "close status 1015", "close status 1016", "close status 2000", "close status 2999", "close status 5000",
    ])
    func protocolErrors(_ rule: String) {
        for role in Self.roles {
            var assembler = WebSocketMessageAssembler(maxSize: 1000, role: role)
            let action: WebSocketMessageAssembler.Action
            switch rule {
            case "continuation first":
                action = assembler.receive(Self.frame(role, .continuation, "x"))
            case "new message inside one":
                _ = assembler.receive(Self.frame(role, .text, "a", fin: false))
                action = assembler.receive(Self.frame(role, .text, "b"))
            case "fragmented ping":
                action = assembler.receive(Self.frame(role, .ping, "x", fin: false))
            case "fragmented close":
                action = assembler.receive(Self.frame(role, .connectionClose, [0x03, 0xe8], fin: false))
            case "long ping":
                action = assembler.receive(Self.frame(role, .ping, String(repeating: "x", count: 126)))
            case "1-byte close status":
                action = assembler.receive(Self.frame(role, .connectionClose, [3]))
            case "reserved bit":
                action = assembler.receive(Self.frame(role, .text, Array("x".utf8), rsv1: true))
            case "reserved bit on a ping":
                action = assembler.receive(Self.frame(role, .ping, [], rsv1: true))
            case let opcode where opcode.hasPrefix("opcode "):
                let code = UInt8(opcode.dropFirst("opcode ".count))!
                action = assembler.receive(Self.frame(role, WebSocketOpcode(encodedWebSocketOpcode: code)!, []))
            default:
                let code = UInt16(rule.dropFirst("close status ".count))!
                action = assembler.receive(Self.close(role, code: code))
            }
            guard case .fail(1002, _) = action else {
                Issue.record("\(rule), \(role): \(action)")
                continue
            }
            #expect(assembler.finished)
        }
    }

    @Test("masking: a server refuses an unmasked frame, a client a masked one (1002)")
    func masking() {
        var server = WebSocketMessageAssembler(maxSize: 100, role: .server)
        guard case .fail(1002, _) = server.receive(Self.frame(.client, .text, "unmasked")) else {
            Issue.record("the server took an unmasked frame")
            return
        }
        var client = WebSocketMessageAssembler(maxSize: 100, role: .client)
        guard case .fail(1002, _) = client.receive(Self.frame(.server, .text, "masked")) else {
            Issue.record("the client took a masked frame")
            return
        }
    }

    /// Group 6: valid UTF-8, whole or split anywhere across fragments, is delivered; invalid
    /// UTF-8 closes with 1007, also when only the joined message shows it.
    @Test("text is UTF-8: valid sequences pass, split anywhere; invalid ones close with 1007", arguments: roles)
    func utf8(_ role: Role) {
        let valid: [[UInt8]] = [
            Array("κόσμε".utf8), [0xf4, 0x8f, 0xbf, 0xbf], [0xef, 0xbf, 0xbf], [0x7f], [0xc2, 0x80], Array("Hello-µ@ßöäüàá-UTF-8!!".utf8),
        ]
        for bytes in valid {
            var whole = WebSocketMessageAssembler(maxSize: 1000, role: role)
            #expect(whole.receive(Self.frame(role, .text, bytes)) == .deliver(.text(String(decoding: bytes, as: UTF8.self))))
            // Split at every byte (6.2.3, 6.2.4: fragments end mid-character).
            for cut in 1..<bytes.count {
                var split = WebSocketMessageAssembler(maxSize: 1000, role: role)
                #expect(split.receive(Self.frame(role, .text, Array(bytes[..<cut]), fin: false)) == .none)
                #expect(split.receive(Self.frame(role, .continuation, Array(bytes[cut...]))) == .deliver(.text(String(decoding: bytes, as: UTF8.self))))
            }
        }
        let invalid: [[UInt8]] = [
            [0xce, 0xba, 0xe1, 0xbd, 0xb9, 0xcf, 0x83, 0xce, 0xbc, 0xce, 0xb5, 0xed, 0xa0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],  // 6.3.1: a surrogate
            [0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0xaf], [0xf0, 0x80, 0x80, 0xaf],  // continuation alone, overlong
            [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80],  // surrogates, past U+10FFFF, 5 bytes
            [0xe2, 0x82], [0xfe], [0xff], [0xc0],  // truncated, never valid
        ]
        for bytes in invalid {
            var whole = WebSocketMessageAssembler(maxSize: 1000, role: role)
            guard case .fail(1007, _) = whole.receive(Self.frame(role, .text, bytes)) else {
                Issue.record("\(bytes) was taken as text")
                continue
            }
            var fragmented = WebSocketMessageAssembler(maxSize: 1000, role: role)
            _ = fragmented.receive(Self.frame(role, .text, Array("ok".utf8), fin: false))
            guard case .fail(1007, _) = fragmented.receive(Self.frame(role, .continuation, bytes)) else {
                Issue.record("\(bytes) was taken as the end of a text message")
                continue
            }
        }
        // Binary messages carry any bytes.
        var binary = WebSocketMessageAssembler(maxSize: 1000, role: role)
        #expect(binary.receive(Self.frame(role, .binary, [0xff, 0xfe])) == .deliver(.binary(Data([0xff, 0xfe]))))
    }

    @Test("a close gives the peer's code (or none) and a UTF-8 reason; an invalid reason is 1007 (7.x)", arguments: roles)
    func closes(_ role: Role) {
        var assembler = WebSocketMessageAssembler(maxSize: 100, role: role)
        #expect(assembler.receive(Self.close(role, code: 4000, reason: Array("bye".utf8))) == .peerClosed(code: 4000))
        #expect(assembler.receive(Self.frame(role, .text, "late")) == .none, "nothing after the close")

        var empty = WebSocketMessageAssembler(maxSize: 100, role: role)
        #expect(empty.receive(Self.close(role, code: nil)) == .peerClosed(code: nil))

        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] {
            var valid = WebSocketMessageAssembler(maxSize: 100, role: role)
            #expect(valid.receive(Self.close(role, code: code)) == .peerClosed(code: code), "status \(code)")
        }

        var badReason = WebSocketMessageAssembler(maxSize: 100, role: role)
        guard case .fail(1007, _) = badReason.receive(Self.close(role, code: 1000, reason: [0xce, 0xba, 0xed, 0xa0, 0x80])) else {
            Issue.record("a close reason that is not UTF-8 was taken")
            return
        }
    }
}
