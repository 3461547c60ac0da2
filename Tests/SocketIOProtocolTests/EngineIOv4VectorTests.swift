import Foundation
import Testing
import SocketIOProtocol

/// One row of vectors.md §3 or §5: an Engine.IO packet and its encoding.
struct EnginePacketVector: Sendable, CustomTestStringConvertible {
    let id: String
    let packet: EnginePacket
    /// `.text`: the text form (a text frame, or a record of a polling body);
    /// `.binary`: a binary WebSocket frame.
    let encoded: Frame

    init(_ id: String, _ packet: EnginePacket, _ encoded: Frame) {
        self.id = id
        self.packet = packet
        self.encoded = encoded
    }

    var testDescription: String { id }

    /// Encodes `packet` in the form of the `encoded` column.
    func encode(version: EngineIOVersion) -> Frame {
        switch encoded {
        case .text: .text(packet.encodedText(version: version))
        case .binary: packet.frame(version: version)
        }
    }

    /// Decodes the `encoded` column.
    func decode(version: EngineIOVersion) throws(ProtocolError) -> EnginePacket {
        switch encoded {
        case .text(let text): try EnginePacket.decode(text: text, version: version)
        case .binary(let frame): try EnginePacket.decode(binaryFrame: frame, version: version)
        }
    }
}

/// vectors.md §3: Engine.IO v4 packets.
@Suite("Engine.IO v4 packets (vectors §3)")
struct EngineIOv4VectorTests {
    static let openJSON =
        #"{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#

    static let vectors: [EnginePacketVector] = [
        EnginePacketVector("E4-01", .open(openJSON), .text("0" + openJSON)),
        EnginePacketVector("E4-02", .close, .text("1")),
        EnginePacketVector("E4-03", .ping(""), .text("2")),
        EnginePacketVector("E4-04", .pong(""), .text("3")),
        EnginePacketVector("E4-05", .ping("probe"), .text("2probe")),
        EnginePacketVector("E4-06", .pong("probe"), .text("3probe")),
        EnginePacketVector("E4-07", .message("hello"), .text("4hello")),
        EnginePacketVector("E4-08", .upgrade, .text("5")),
        EnginePacketVector("E4-09", .noop, .text("6")),
        EnginePacketVector("E4-10", .message("1€"), .text("41€")),
        EnginePacketVector("E4-11", .binaryMessage(Data([0x01, 0x02, 0x03, 0x04])), .binary(Data([0x01, 0x02, 0x03, 0x04]))),
        EnginePacketVector("E4-12", .binaryMessage(Data([0x01, 0x02, 0x03, 0x04])), .text("bAQIDBA==")),
    ]

    @Test("encode", arguments: vectors)
    func encode(_ vector: EnginePacketVector) {
        expectSameBytes(vector.encode(version: .v4), vector.encoded, vector.id)
    }

    @Test("decode", arguments: vectors)
    func decode(_ vector: EnginePacketVector) throws {
        #expect(try vector.decode(version: .v4) == vector.packet, "\(vector.id)")
    }

    @Test func textPacketsTravelAsTextFrames() {
        // Every row but the binary ones is also exactly its WebSocket text frame.
        for vector in Self.vectors {
            guard case .text(let text) = vector.encoded, !text.hasPrefix("b") else { continue }
            expectSameBytes(vector.packet.frame(version: .v4), .text(text), vector.id)
        }
    }

    @Test func euroIsUTF8OnTheWire() {
        // E4-10 note: 34 31 e2 82 ac.
        #expect(Array(EnginePacket.message("1€").encodedText(version: .v4).utf8) == [0x34, 0x31, 0xE2, 0x82, 0xAC])
    }
}
