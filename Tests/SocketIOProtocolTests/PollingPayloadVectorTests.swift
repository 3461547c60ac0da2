import Foundation
import Testing
import SocketIOProtocol

/// One row of vectors.md §4 or §6: packets and their text polling body.
struct PayloadVector: Sendable, CustomTestStringConvertible {
    let id: String
    let packets: [EnginePacket]
    let body: String

    init(_ id: String, _ packets: [EnginePacket], _ body: String) {
        self.id = id
        self.packets = packets
        self.body = body
    }

    var testDescription: String { id }
}

/// One row of vectors.md §7: packets and their v3 binary (XHR2) body.
struct BinaryPayloadVector: Sendable, CustomTestStringConvertible {
    let id: String
    let packets: [EnginePacket]
    let body: Data

    init(_ id: String, _ packets: [EnginePacket], _ body: [UInt8]) {
        self.id = id
        self.packets = packets
        self.body = Data(body)
    }

    var testDescription: String { id }
}

/// vectors.md §4, §6 and §7: polling bodies.
@Suite("Polling payloads (vectors §4, §6, §7)")
struct PollingPayloadVectorTests {
    static let bytes = Data([0x01, 0x02, 0x03, 0x04])
    static let openV3JSON =
        #"{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}"#

    // MARK: §4 Engine.IO v4

    static let v4Vectors: [PayloadVector] = [
        PayloadVector("P4-01", [.message("hello"), .ping(""), .message("world")], "4hello\u{1e}2\u{1e}4world"),
        PayloadVector("P4-02", [.open(""), .close, .ping("probe"), .pong("probe"), .message("test")],
                      "0\u{1e}1\u{1e}2probe\u{1e}3probe\u{1e}4test"),
        PayloadVector("P4-03", [.message("test"), .binaryMessage(bytes)], "4test\u{1e}bAQIDBA=="),
        PayloadVector("P4-04", [.message("test1"), .message("test2"), .message("test3")], "4test1\u{1e}4test2\u{1e}4test3"),
        PayloadVector("P4-05", [.message(#"2["hello"]"#), .message(#"2["world"]"#)], #"42["hello"]\#u{1e}42["world"]"#),
        PayloadVector("P4-06", [.message("😀"), .message("€")], "4😀\u{1e}4€"),
        PayloadVector("P4-07", [.message("hello")], "4hello"),
        PayloadVector("P4-08", [.noop, .close], "6\u{1e}1"),
    ]

    @Test("v4 encode", arguments: v4Vectors)
    func encodeV4(_ vector: PayloadVector) {
        expectSameBytes(PollingPayload.encode(vector.packets, version: .v4), vector.body, vector.id)
    }

    @Test("v4 decode", arguments: v4Vectors)
    func decodeV4(_ vector: PayloadVector) throws {
        #expect(try PollingPayload.decode(vector.body, version: .v4) == vector.packets, "\(vector.id)")
    }

    @Test func p406BodyBytes() {
        // P4-06 note: no lengths in v4.
        #expect(Array(PollingPayload.encode([.message("😀"), .message("€")], version: .v4).utf8)
            == [0x34, 0xF0, 0x9F, 0x98, 0x80, 0x1E, 0x34, 0xE2, 0x82, 0xAC])
    }

    @Test func v4DecodeSplitsOnTheSeparatorOnly() throws {
        // The separator is split on as a byte: a combining mark after it starts the next record
        // (a control character joins no grapheme), empty records are errors, not skipped.
        #expect(try PollingPayload.decode("4e\u{301}\u{1e}4\u{301}😀\u{1e}4", version: .v4)
            == [.message("e\u{301}"), .message("\u{301}😀"), .message("")])
        #expect(throws: ProtocolError.emptyPacket) { try PollingPayload.decode("4a\u{1e}\u{1e}4b", version: .v4) }
        #expect(throws: ProtocolError.emptyPacket) { try PollingPayload.decode("4a\u{1e}", version: .v4) }
    }

    // MARK: §6 Engine.IO v3 text bodies

    static let v3Vectors: [PayloadVector] = [
        PayloadVector("P3-01", [.open(openV3JSON)], "96:0" + openV3JSON),
        PayloadVector("P3-02", [.message("hey")], "4:4hey"),
        PayloadVector("P3-03", [.message("hello"), .message("world")], "6:4hello6:4world"),
        PayloadVector("P3-04", [.message("hello"), .message("€")], "6:4hello2:4€"),
        PayloadVector("P3-05", [.message("€"), .binaryMessage(bytes)], "2:4€10:b4AQIDBA=="),
        PayloadVector("P3-06", [.message("test1"), .message("test2"), .message("test3")], "6:4test16:4test26:4test3"),
        PayloadVector("P3-07", [.message("hello"), .binaryMessage(bytes)], "6:4hello10:b4AQIDBA=="),
        PayloadVector("P3-08", [.message("😀")], "3:4😀"),
        PayloadVector("P3-09", [.message("😀"), .message("hi")], "3:4😀3:4hi"),
        PayloadVector("P3-10", [.message("héllo wörld")], "12:4héllo wörld"),
        PayloadVector("P3-11", [], "0:"),
        PayloadVector("P3-12", [.ping("")], "1:2"),
        PayloadVector("P3-13", [.noop], "1:6"),
        PayloadVector("P3-14", [.open(openV3JSON), .message("0")], "96:0" + openV3JSON + "2:40"),
        PayloadVector("P3-15", [.message(#"2["hello"]"#), .message(#"2["world"]"#)], #"11:42["hello"]11:42["world"]"#),
        PayloadVector("P3-16", [.message(#"2["hey","Jude"]"#)], #"16:42["hey","Jude"]"#),
        PayloadVector("P3-17", [.message(#"2["foo"]"#), .message(#"2["bar"]"#)], #"9:42["foo"]9:42["bar"]"#),
        PayloadVector("P3-18", [.close], "1:1"),
    ]

    @Test("v3 encode", arguments: v3Vectors)
    func encodeV3(_ vector: PayloadVector) {
        expectSameBytes(PollingPayload.encode(vector.packets, version: .v3), vector.body, vector.id)
    }

    @Test("v3 decode", arguments: v3Vectors)
    func decodeV3(_ vector: PayloadVector) throws {
        #expect(try PollingPayload.decode(vector.body, version: .v3) == vector.packets, "\(vector.id)")
    }

    // MARK: §7 Engine.IO v3 binary (XHR2) bodies

    static let binaryVectors: [BinaryPayloadVector] = [
        BinaryPayloadVector("B3-01", [.message("€"), .binaryMessage(bytes)],
                            [0x00, 0x04, 0xFF, 0x34, 0xE2, 0x82, 0xAC, 0x01, 0x05, 0xFF, 0x04, 0x01, 0x02, 0x03, 0x04]),
        BinaryPayloadVector("B3-02", [.message("hello"), .binaryMessage(bytes)],
                            [0x00, 0x06, 0xFF, 0x34, 0x68, 0x65, 0x6C, 0x6C, 0x6F, 0x01, 0x05, 0xFF, 0x04, 0x01, 0x02, 0x03, 0x04]),
        BinaryPayloadVector("B3-03", [.message("aaaaaaaaaaa"), .binaryMessage(Data([0xFF]))],
                            [0x00, 0x01, 0x02, 0xFF, 0x34, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61,
                             0x01, 0x02, 0xFF, 0x04, 0xFF]),
    ]

    @Test("v3 binary encode", arguments: binaryVectors)
    func encodeBinaryV3(_ vector: BinaryPayloadVector) {
        #expect(PollingPayload.encodeBinaryV3(vector.packets) == vector.body, "\(vector.id)")
    }

    @Test("v3 binary decode", arguments: binaryVectors)
    func decodeBinaryV3(_ vector: BinaryPayloadVector) throws {
        #expect(try PollingPayload.decodeBinaryV3(vector.body) == vector.packets, "\(vector.id)")
    }
}
