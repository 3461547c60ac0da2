/// Cases of Autobahn|Testsuite's groups 1–7 (`case/Case*.py`), as data both ends are driven with
/// over real sockets: the server by a hand-written client that sends the frames (masked), the
/// client by a server that sends them (unmasked). Each case says what the tested end must do:
/// echo messages and pongs (the server's `/ws` echoes; the client delivers), answer a close, or
/// fail the connection with one of the given statuses.
///
/// Not here: how TCP chops the stream (`chopsize`, swift-nio's frame decoder), group 9
/// (performance, measured by `sio bench`), and cases whose only point is timing (`killAfter`).
public enum RFC6455Cases {
    public struct Frame: Sendable {
        public let opcode: UInt8
        public let payload: [UInt8]
        public let fin: Bool
        /// The RSV bits, already shifted (0x40, 0x20, 0x10).
        public let reserved: UInt8

        public init(_ opcode: UInt8, _ payload: [UInt8] = [], fin: Bool = true, reserved: UInt8 = 0) {
            self.opcode = opcode
            self.payload = payload
            self.fin = fin
            self.reserved = reserved
        }
    }

    public enum Expected: Sendable, Equatable {
        /// These messages (text as UTF-8 bytes, binary) and pongs, in order each.
        case echoes(texts: [[UInt8]], binaries: [[UInt8]], pongs: [[UInt8]])
        /// The peer's close answered with `code` (nil: no status).
        case closeAnswered(code: UInt16?)
        /// The connection failed by the tested end, with one of these statuses.
        case failed(codes: Set<UInt16>)
    }

    public struct Case: Sendable, CustomStringConvertible {
        public let id: String
        public let frames: [Frame]
        public let expected: Expected
        public var description: String { id }
    }

    static func text(_ string: String) -> [UInt8] { Array(string.utf8) }
    static func close(_ code: UInt16, _ reason: [UInt8] = []) -> Frame {
        Frame(0x8, [UInt8(code >> 8), UInt8(code & 0xff)] + reason)
    }
    static func echo(texts: [[UInt8]] = [], binaries: [[UInt8]] = [], pongs: [[UInt8]] = []) -> Expected {
        .echoes(texts: texts, binaries: binaries, pongs: pongs)
    }

    static let kosme: [UInt8] = [0xce, 0xba, 0xe1, 0xbd, 0xb9, 0xcf, 0x83, 0xce, 0xbc, 0xce, 0xb5]
    static let kosmeSurrogate: [UInt8] = kosme + [0xed, 0xa0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64]

    public static let all: [Case] = framing + pings + reservedBits + opcodes + fragmentation + utf8 + closing

    // Group 1: text and binary messages of every length class.
    static let framing: [Case] = [0, 125, 126, 127, 128, 65_535, 65_536].flatMap { length in
        [
            Case(id: "1.1 text \(length)", frames: [Frame(0x1, [UInt8](repeating: 0x2a, count: length))],
                 expected: echo(texts: [[UInt8](repeating: 0x2a, count: length)])),
            Case(id: "1.2 binary \(length)", frames: [Frame(0x2, [UInt8](repeating: 0xfe, count: length))],
                 expected: echo(binaries: [[UInt8](repeating: 0xfe, count: length)])),
        ]
    }

    // Group 2: pings and pongs.
    static let pings: [Case] = [
        Case(id: "2.1 empty ping", frames: [Frame(0x9)], expected: echo(pongs: [[]])),
        Case(id: "2.2 ping with text", frames: [Frame(0x9, text("Hello, world!"))], expected: echo(pongs: [text("Hello, world!")])),
        Case(id: "2.3 ping with bytes", frames: [Frame(0x9, [0x00, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0x00, 0xff])],
             expected: echo(pongs: [[0x00, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0x00, 0xff]])),
        Case(id: "2.4 ping of 125 bytes", frames: [Frame(0x9, [UInt8](repeating: 0xfe, count: 125))],
             expected: echo(pongs: [[UInt8](repeating: 0xfe, count: 125)])),
        Case(id: "2.5 ping of 126 bytes", frames: [Frame(0x9, [UInt8](repeating: 0xfe, count: 126))], expected: .failed(codes: [1002])),
        Case(id: "2.7 unsolicited pong", frames: [Frame(0xA), Frame(0x1, text("after"))], expected: echo(texts: [text("after")])),
        Case(id: "2.10 ten pings", frames: (0..<10).map { Frame(0x9, text("ping \($0)")) },
             expected: echo(pongs: (0..<10).map { text("ping \($0)") })),
    ]

    // Group 3: reserved bits with no extension negotiated.
    static let reservedBits: [Case] = [
        Case(id: "3.1 RSV1 text", frames: [Frame(0x1, text("Hello"), reserved: 0x40)], expected: .failed(codes: [1002])),
        Case(id: "3.2 RSV2 text after a valid one", frames: [Frame(0x1, text("Hello")), Frame(0x1, text("Hello"), reserved: 0x20)],
             expected: .failed(codes: [1002])),
        Case(id: "3.4 RSV1|RSV3 text", frames: [Frame(0x1, text("Hello"), reserved: 0x50)], expected: .failed(codes: [1002])),
        Case(id: "3.5 RSV1|RSV2 binary", frames: [Frame(0x2, [0xff], reserved: 0x60)], expected: .failed(codes: [1002])),
        Case(id: "3.6 RSV2|RSV3 ping", frames: [Frame(0x9, text("Hello"), reserved: 0x30)], expected: .failed(codes: [1002])),
        Case(id: "3.7 all RSV close", frames: [Frame(0x8, [0x03, 0xe8], reserved: 0x70)], expected: .failed(codes: [1002])),
    ]

    // Group 4: reserved opcodes.
    static let opcodes: [Case] = [3, 4, 5, 6, 7, 11, 12, 13, 14, 15].map { opcode in
        Case(id: "4 opcode \(opcode)", frames: [Frame(UInt8(opcode), text("x"))], expected: .failed(codes: [1002]))
    }

    // Group 5: fragmentation.
    static let fragmentation: [Case] = [
        Case(id: "5.1 fragmented ping", frames: [Frame(0x9, text("frag"), fin: false), Frame(0x0, text("ment"))],
             expected: .failed(codes: [1002])),
        Case(id: "5.2 fragmented pong", frames: [Frame(0xA, text("frag"), fin: false), Frame(0x0, text("ment"))],
             expected: .failed(codes: [1002])),
        Case(id: "5.3 text in two fragments", frames: [Frame(0x1, text("frag"), fin: false), Frame(0x0, text("ment"))],
             expected: echo(texts: [text("fragment")])),
        Case(id: "5.6 text fragments with a ping between", frames: [
            Frame(0x1, text("frag"), fin: false), Frame(0x9, text("ping")), Frame(0x0, text("ment")),
        ], expected: echo(texts: [text("fragment")], pongs: [text("ping")])),
        Case(id: "5.9 continuation first", frames: [Frame(0x0, text("x"), fin: true), Frame(0x1, text("ok"))],
             expected: .failed(codes: [1002])),
        Case(id: "5.13 continuation first, not final", frames: [Frame(0x0, text("x"), fin: false)], expected: .failed(codes: [1002])),
        Case(id: "5.15 a message, then a continuation", frames: [
            Frame(0x1, text("frag"), fin: false), Frame(0x0, text("ment")), Frame(0x0, text("x")),
        ], expected: .failed(codes: [1002])),
        Case(id: "5.18 a new text inside a message", frames: [Frame(0x1, text("a"), fin: false), Frame(0x1, text("b"))],
             expected: .failed(codes: [1002])),
        Case(id: "5.19 fragments with pings between each", frames: [
            Frame(0x1, text("one "), fin: false), Frame(0x9, text("1")), Frame(0x0, text("two "), fin: false),
            Frame(0x9, text("2")), Frame(0x0, text("three")),
        ], expected: echo(texts: [text("one two three")], pongs: [text("1"), text("2")])),
        Case(id: "5.20 empty fragments", frames: [Frame(0x1, [], fin: false), Frame(0x0, [], fin: false), Frame(0x0, text("x"))],
             expected: echo(texts: [text("x")])),
    ]

    // Group 6: UTF-8 in text messages.
    static let utf8: [Case] = [
        Case(id: "6.1 empty text fragments", frames: [Frame(0x1, [], fin: false), Frame(0x0, [])], expected: echo(texts: [[]])),
        Case(id: "6.2.1 valid, whole", frames: [Frame(0x1, kosme)], expected: echo(texts: [kosme])),
        Case(id: "6.2.3 valid, one byte per fragment",
             frames: kosme.enumerated().map { Frame($0.offset == 0 ? 0x1 : 0x0, [$0.element], fin: $0.offset == kosme.count - 1) },
             expected: echo(texts: [kosme])),
        Case(id: "6.3.1 a surrogate, whole", frames: [Frame(0x1, kosmeSurrogate)], expected: .failed(codes: [1007])),
        Case(id: "6.3.2 a surrogate, one byte per fragment",
             frames: kosmeSurrogate.enumerated().map { Frame($0.offset == 0 ? 0x1 : 0x0, [$0.element], fin: $0.offset == kosmeSurrogate.count - 1) },
             expected: .failed(codes: [1007])),
        Case(id: "6.5 the last code point", frames: [Frame(0x1, [0xf4, 0x8f, 0xbf, 0xbf])], expected: echo(texts: [[0xf4, 0x8f, 0xbf, 0xbf]])),
        Case(id: "6.6 past the last code point", frames: [Frame(0x1, [0xf4, 0x90, 0x80, 0x80])], expected: .failed(codes: [1007])),
        Case(id: "6.8 five bytes", frames: [Frame(0x1, [0xf8, 0x88, 0x80, 0x80, 0x80])], expected: .failed(codes: [1007])),
        Case(id: "6.9 overlong", frames: [Frame(0x1, [0xc0, 0xaf])], expected: .failed(codes: [1007])),
        Case(id: "6.10 a lone continuation byte", frames: [Frame(0x1, [0x80])], expected: .failed(codes: [1007])),
        Case(id: "6.12 truncated", frames: [Frame(0x1, [0xe2, 0x82])], expected: .failed(codes: [1007])),
        Case(id: "6.20 0xFE", frames: [Frame(0x1, [0xfe])], expected: .failed(codes: [1007])),
    ]

    // Group 7: closing.
    static let closing: [Case] = [
        Case(id: "7.1.1 echo, then close", frames: [Frame(0x1, text("Hello World!")), close(1000)], expected: .closeAnswered(code: 1000)),
        Case(id: "7.3.1 close without status", frames: [Frame(0x8)], expected: .closeAnswered(code: nil)),
        Case(id: "7.3.2 close with a 1-byte status", frames: [Frame(0x8, [0x03])], expected: .failed(codes: [1002])),
        Case(id: "7.3.3 close 1000", frames: [close(1000)], expected: .closeAnswered(code: 1000)),
        Case(id: "7.3.4 close 1000 with a reason", frames: [close(1000, text("Hello World!"))], expected: .closeAnswered(code: 1000)),
        Case(id: "7.3.5 close 1000 with a 123-byte reason", frames: [close(1000, [UInt8](repeating: 0x2a, count: 123))],
             expected: .closeAnswered(code: 1000)),
        Case(id: "7.3.6 close with a 124-byte reason", frames: [close(1000, [UInt8](repeating: 0x2a, count: 124))],
             expected: .failed(codes: [1002])),
        Case(id: "7.5.1 close reason not UTF-8", frames: [close(1000, kosmeSurrogate)], expected: .failed(codes: [1002, 1007])),
    ] + [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999].map { (code: UInt16) in
        Case(id: "7.7 close \(code)", frames: [close(code)], expected: .closeAnswered(code: code))
    } + [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000].map { (code: UInt16) in
        Case(id: "7.9 close \(code)", frames: [close(code)], expected: .failed(codes: [1002]))
    }
}
