import Foundation
import Testing
import SocketIOProtocol

/// vectors.md §5: Engine.IO v3 packets.
@Suite("Engine.IO v3 packets (vectors §5)")
struct EngineIOv3VectorTests {
    static let openJSON =
        #"{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}"#

    static let vectors: [EnginePacketVector] = [
        EnginePacketVector("E3-01", .message("hello"), .text("4hello")),
        EnginePacketVector("E3-02", .ping("probe"), .text("2probe")),
        EnginePacketVector("E3-03", .binaryMessage(Data([0x01, 0x02, 0x03, 0x04])), .binary(Data([0x04, 0x01, 0x02, 0x03, 0x04]))),
        EnginePacketVector("E3-04", .binaryMessage(Data([0x01, 0x02, 0x03, 0x04])), .text("b4AQIDBA==")),
        EnginePacketVector("E3-05", .ping(""), .text("2")),
        EnginePacketVector("E3-06", .pong(""), .text("3")),
        EnginePacketVector("E3-07", .open(openJSON), .text("0" + openJSON)),
        EnginePacketVector("E3-08", .close, .text("1")),
        EnginePacketVector("E3-09", .upgrade, .text("5")),
        EnginePacketVector("E3-10", .noop, .text("6")),
    ]

    @Test("encode", arguments: vectors)
    func encode(_ vector: EnginePacketVector) {
        expectSameBytes(vector.encode(version: .v3), vector.encoded, vector.id)
    }

    @Test("decode", arguments: vectors)
    func decode(_ vector: EnginePacketVector) throws {
        #expect(try vector.decode(version: .v3) == vector.packet, "\(vector.id)")
    }

    @Test func textPacketsTravelAsTextFrames() {
        for vector in Self.vectors {
            guard case .text(let text) = vector.encoded, !text.hasPrefix("b") else { continue }
            expectSameBytes(vector.packet.frame(version: .v3), .text(text), vector.id)
        }
    }
}
