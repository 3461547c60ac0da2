import Foundation
import Testing
import SocketIOProtocol

/// A server's first message whose first packet is a valid `open`.
struct HandshakeVector: Sendable, CustomTestStringConvertible {
    let id: String
    let version: EngineIOVersion
    /// A polling body, or a WebSocket text frame when `polling` is false.
    let wire: String
    let polling: Bool
    let expected: EngineHandshake
    /// ``EngineHandshake/json`` of the result: the JS server's key order.
    let json: String

    var testDescription: String { id }
}

/// An `open` packet with bad JSON, or a first packet that is not `open`.
struct InvalidHandshakeVector: Sendable, CustomTestStringConvertible {
    let id: String
    let packet: EnginePacket

    init(_ id: String, _ packet: EnginePacket) {
        self.id = id
        self.packet = packet
    }

    var testDescription: String { id }
}

/// The Engine.IO handshake: E4-01, E3-07, P3-01 and the transcripts' python `open` packets.
@Suite("Engine.IO handshake")
struct HandshakeTests {
    static let jsV4 =
        #"{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#
    static let jsV3 =
        #"{"sid":"lv_VI97HAXpY6yYWAAAC","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}"#

    static let vectors: [HandshakeVector] = [
        HandshakeVector(
            id: "E4-01", version: .v4, wire: "0" + jsV4, polling: false,
            expected: EngineHandshake(sid: "lv_VI97HAXpY6yYWAAAC", upgrades: ["websocket"],
                                      pingInterval: 25000, pingTimeout: 20000, maxPayload: 1_000_000),
            json: jsV4),
        HandshakeVector(
            id: "E3-07", version: .v3, wire: "0" + jsV3, polling: false,
            expected: EngineHandshake(sid: "lv_VI97HAXpY6yYWAAAC", upgrades: ["websocket"],
                                      pingInterval: 25000, pingTimeout: 5000, maxPayload: nil),
            json: jsV3),
        HandshakeVector(
            id: "P3-01", version: .v3, wire: "96:0" + jsV3, polling: true,
            expected: EngineHandshake(sid: "lv_VI97HAXpY6yYWAAAC", upgrades: ["websocket"],
                                      pingInterval: 25000, pingTimeout: 5000, maxPayload: nil),
            json: jsV3),
        // python 4.x orders pingTimeout before pingInterval (both 2000 in the transcript).
        HandshakeVector(
            id: "11.1 #2 python 4.x",
            version: .v4,
            wire: #"0{"sid":"cFgA3LSXVcSAVuDwAAAD","upgrades":["websocket"],"pingTimeout":2000,"pingInterval":2000,"maxPayload":1000000}"#,
            polling: true,
            expected: EngineHandshake(sid: "cFgA3LSXVcSAVuDwAAAD", upgrades: ["websocket"],
                                      pingInterval: 2000, pingTimeout: 2000, maxPayload: 1_000_000),
            json: #"{"sid":"cFgA3LSXVcSAVuDwAAAD","upgrades":["websocket"],"pingInterval":2000,"pingTimeout":2000,"maxPayload":1000000}"#),
        // The same key order with python's defaults, where swapping the two keys would show.
        HandshakeVector(
            id: "python 4.x key order, 25000/20000",
            version: .v4,
            wire: #"0{"sid":"cFgA3LSXVcSAVuDwAAAD","upgrades":["websocket"],"pingTimeout":20000,"pingInterval":25000,"maxPayload":1000000}"#,
            polling: true,
            expected: EngineHandshake(sid: "cFgA3LSXVcSAVuDwAAAD", upgrades: ["websocket"],
                                      pingInterval: 25000, pingTimeout: 20000, maxPayload: 1_000_000),
            json: #"{"sid":"cFgA3LSXVcSAVuDwAAAD","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#),
        // python 3.x: no maxPayload, and more packets follow the open in the same body.
        HandshakeVector(
            id: "11.2 #2 python 3.x",
            version: .v3,
            wire: #"107:0{"sid":"03ffcdc8b4e24a5eba9f870a4d08e4cc","upgrades":["websocket"],"pingTimeout":5000,"pingInterval":2000}18:42["welcome","hi"]2:40"#,
            polling: true,
            expected: EngineHandshake(sid: "03ffcdc8b4e24a5eba9f870a4d08e4cc", upgrades: ["websocket"],
                                      pingInterval: 2000, pingTimeout: 5000, maxPayload: nil),
            json: #"{"sid":"03ffcdc8b4e24a5eba9f870a4d08e4cc","upgrades":["websocket"],"pingInterval":2000,"pingTimeout":5000}"#),
    ]

    @Test("parse", arguments: vectors)
    func parse(_ vector: HandshakeVector) throws {
        let first: EnginePacket
        if vector.polling {
            first = try #require(try PollingPayload.decode(vector.wire, version: vector.version).first, "\(vector.id)")
        } else {
            first = try EnginePacket.decode(text: vector.wire, version: vector.version)
        }
        let handshake = try EngineHandshake(packet: first)
        #expect(handshake == vector.expected, "\(vector.id)")
    }

    @Test("write", arguments: vectors)
    func write(_ vector: HandshakeVector) {
        expectSameBytes(vector.expected.json, vector.json, vector.id)
    }

    static let invalid: [InvalidHandshakeVector] = [
        InvalidHandshakeVector("missing sid", .open(#"{"upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000}"#)),
        InvalidHandshakeVector("empty sid", .open(#"{"sid":"","upgrades":[],"pingInterval":25000,"pingTimeout":20000}"#)),
        InvalidHandshakeVector("sid not a string", .open(#"{"sid":12,"upgrades":[],"pingInterval":25000,"pingTimeout":20000}"#)),
        InvalidHandshakeVector("missing pingInterval", .open(#"{"sid":"abc","upgrades":[],"pingTimeout":20000}"#)),
        InvalidHandshakeVector("pingInterval not a number",
                               .open(#"{"sid":"abc","upgrades":[],"pingInterval":"25000","pingTimeout":20000}"#)),
        InvalidHandshakeVector("missing pingTimeout", .open(#"{"sid":"abc","upgrades":[],"pingInterval":25000}"#)),
        InvalidHandshakeVector("not JSON", .open("hello")),
        InvalidHandshakeVector("truncated JSON", .open(#"{"sid":"abc","pingInterval":25000,"pingTimeout":"#)),
        InvalidHandshakeVector("empty open", .open("")),
        InvalidHandshakeVector("JSON array", .open("[]")),
        InvalidHandshakeVector("first packet is a message", .message("0")),
        InvalidHandshakeVector("first packet is noop", .noop),
        InvalidHandshakeVector("first packet is close", .close),
        InvalidHandshakeVector("first packet is binary", .binaryMessage(Data([0x30]))),
    ]

    @Test("reject", arguments: invalid)
    func reject(_ vector: InvalidHandshakeVector) {
        let error = #expect(throws: ProtocolError.self, "\(vector.id)") { _ = try EngineHandshake(packet: vector.packet) }
        if let error {
            #expect(error.matches(.invalidHandshake("")), "\(vector.id): got \(error)")
        }
    }

    @Test func serverSendingSocketIOFirstIsNotAHandshake() throws {
        // A body that starts with a Socket.IO CONNECT instead of `open`.
        let packets = try PollingPayload.decode("40", version: .v4)
        let first = try #require(packets.first)
        let error = #expect(throws: ProtocolError.self) { _ = try EngineHandshake(packet: first) }
        #expect(error?.matches(.invalidHandshake("")) == true)
    }
}
