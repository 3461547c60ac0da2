import Foundation
import SocketIOProtocol
import Testing

/// MessagePack, format by format, at every boundary of the specification
/// (https://github.com/msgpack/msgpack/blob/master/spec.md): the smallest encoding out, every
/// encoding in, malformed bytes as typed errors, and the JSON bridge the cluster adapter uses.
@Suite("MessagePack")
struct MessagePackTests {
    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index ..< next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static let vectors: [(MessagePackValue, String)] = [
        (.nil, "c0"), (.bool(false), "c2"), (.bool(true), "c3"),
        (.int(0), "00"), (.int(127), "7f"), (.int(128), "cc80"), (.int(255), "ccff"),
        (.int(256), "cd0100"), (.int(65_535), "cdffff"), (.int(65_536), "ce00010000"),
        (.int(4_294_967_295), "ceffffffff"), (.int(4_294_967_296), "cf0000000100000000"),
        (.int(Int64.max), "cf7fffffffffffffff"), (.uint(UInt64.max), "cfffffffffffffffff"),
        (.int(-1), "ff"), (.int(-32), "e0"), (.int(-33), "d0df"), (.int(-128), "d080"),
        (.int(-129), "d1ff7f"), (.int(-32_768), "d18000"), (.int(-32_769), "d2ffff7fff"),
        (.int(-2_147_483_648), "d280000000"), (.int(-2_147_483_649), "d3ffffffff7fffffff"),
        (.int(Int64.min), "d38000000000000000"),
        (.float(0.5), "cb3fe0000000000000"), (.float(-1.5), "cbbff8000000000000"),
        (.string(""), "a0"), (.string("a"), "a161"), (.string("é"), "a2c3a9"),
        (.string(String(repeating: "x", count: 31)), "bf" + String(repeating: "78", count: 31)),
        (.string(String(repeating: "x", count: 32)), "d920" + String(repeating: "78", count: 32)),
        (.string(String(repeating: "x", count: 256)), "da0100" + String(repeating: "78", count: 256)),
        (.binary(Data()), "c400"), (.binary(Data([1, 2, 3])), "c403010203"),
        (.binary(Data(repeating: 7, count: 256)), "c50100" + String(repeating: "07", count: 256)),
        (.array([]), "90"), (.array([.int(1), .string("a")]), "9201a161"),
        (.array(Array(repeating: .nil, count: 16)), "dc0010" + String(repeating: "c0", count: 16)),
        (.map([]), "80"), (.map([MessagePackPair(.string("a"), .int(1))]), "81a16101"),
        (.map((0 ..< 16).map { MessagePackPair(.int(Int64($0)), .nil) }),
         "de0010" + (0 ..< 16).map { String(format: "%02xc0", $0) }.joined()),
        (.ext(type: 5, data: Data([0x10])), "d40510"), (.ext(type: 5, data: Data([1, 2])), "d5050102"),
        (.ext(type: -1, data: Data([0, 0, 0, 0])), "d6ff00000000"),
        (.ext(type: 7, data: Data([1, 2, 3])), "c70307010203"),
    ]

    @Test func everyFormatEncodesToItsSmallestFormAndDecodesBack() throws {
        for (value, expected) in Self.vectors {
            #expect(Self.hex(value.encoded) == expected, "\(value)")
            #expect(try MessagePackValue(decoding: Self.bytes(expected)) == value, "\(expected)")
        }
    }

    @Test(arguments: [
        ("ca3fc00000", MessagePackValue.float(1.5)),   // float 32
        ("cc05", .int(5)),                              // not the smallest form: still read
        ("d0ff", .int(-1)),
        ("d9026869", .string("hi")),
        ("dd0000000101", .array([.int(1)])),
        ("df00000001a16101", .map([MessagePackPair(.string("a"), .int(1))])),
        ("c6000000020102", .binary(Data([1, 2]))),
    ])
    func largerEncodingsThanNeededAreRead(_ hex: String, _ value: MessagePackValue) throws {
        #expect(try MessagePackValue(decoding: Self.bytes(hex)) == value)
    }

    @Test(arguments: [
        ("", MessagePackError.truncated(offset: 0)),
        ("c1", .invalidByte(0xc1, offset: 0)),
        ("a361", .truncated(offset: 2)),
        ("cd01", .truncated(offset: 2)),
        ("ddffffffff", .truncated(offset: 5)),      // a huge count, nothing allocated for it
        ("dfffffffff", .truncated(offset: 5)),
        ("c6ffffffff00", .truncated(offset: 6)),
        ("a1ff", .invalidString(offset: 1)),
        ("c0c0", .trailingBytes(count: 1)),
        ("92c0", .truncated(offset: 2)),
    ])
    func malformedBytesAreTypedErrors(_ hex: String, _ expected: MessagePackError) {
        #expect(throws: expected) { _ = try MessagePackValue(decoding: Self.bytes(hex)) }
    }

    @Test func nestingIsBounded() {
        let deep = Array(repeating: UInt8(0x91), count: 100) + [0xc0]
        #expect(throws: MessagePackError.tooDeep(limit: 64)) { _ = try MessagePackValue(decoding: deep) }
        #expect(throws: Never.self) { _ = try MessagePackValue(decoding: deep, maxDepth: 128) }
    }

    /// A cluster adapter's broadcast with a binary argument, as the attachments table holds it.
    @Test func jsonWithBinaryRoundTripsAsTheClusterAdapterStoresIt() throws {
        let message: JSONValue = [
            "uid": "4f1a2b3c4d5e6f70",
            "type": 3,
            "data": [
                "packet": ["type": 2, "nsp": "/", "data": ["file", .binary(Data([0, 1, 255])), 1.5]],
                "opts": ["rooms": ["room1"], "except": [], "flags": [:]],
            ],
            "nsp": "/",
        ]
        let packed = MessagePackValue(json: message)
        guard case .map(let pairs) = packed else {
            Issue.record("not a map")
            return
        }
        #expect(pairs.map(\.key) == [.string("uid"), .string("type"), .string("data"), .string("nsp")], "keys in order")
        #expect(pairs[1].value == .int(3), "an integral number as an integer format")
        let decoded = try JSONValue(messagePack: try MessagePackValue(decoding: packed.encoded))
        #expect(decoded == message)
    }

    @Test func timestampsBecomeTheStringsADateSerializesTo() throws {
        // 2024-01-02T03:04:05.678Z as the 64-bit form: nanoseconds << 34 | seconds.
        let seconds: UInt64 = 1_704_164_645
        let nanoseconds: UInt64 = 678_000_000
        let packed = (nanoseconds << 34 | seconds).bigEndian
        let data = withUnsafeBytes(of: packed) { Data($0) }
        #expect(try JSONValue(messagePack: .ext(type: -1, data: data)) == "2024-01-02T03:04:05.678Z")
        #expect(try JSONValue(messagePack: .ext(type: -1, data: Data([0, 0, 0, 0]))) == "1970-01-01T00:00:00.000Z")
        // Found by fuzzing: a 64-bit timestamp whose nanoseconds pass a second crashed the
        // formatting; it is an error now, as is one past JavaScript's Date range.
        #expect(throws: MessagePackError.notJSON("a timestamp out of range")) {
            _ = try JSONValue(messagePack: .ext(type: -1, data: Data(repeating: 0xff, count: 8)))
        }
        #expect(throws: MessagePackError.notJSON("a timestamp out of range")) {
            _ = try JSONValue(messagePack: .ext(type: -1, data: Data([0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])))
        }
        // Seconds of Int64.min: `abs` of it overflowed and stopped the process.
        #expect(throws: MessagePackError.notJSON("a timestamp out of range")) {
            _ = try JSONValue(messagePack: .ext(type: -1, data: Data([0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0])))
        }
        #expect(throws: MessagePackError.notJSON("extension type 3")) { _ = try JSONValue(messagePack: .ext(type: 3, data: Data())) }
        #expect(throws: MessagePackError.notJSON("a map key that is not a string")) {
            _ = try JSONValue(messagePack: .map([MessagePackPair(.int(1), .nil)]))
        }
    }
}
