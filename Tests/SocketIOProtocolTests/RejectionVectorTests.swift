import Foundation
import Testing
import SocketIOProtocol

/// One row of vectors.md §10: input that must be rejected, and the error we expect.
struct RejectionVector: Sendable, CustomTestStringConvertible {
    enum Layer: Sendable {
        /// One Engine.IO v4 packet (a WebSocket text frame).
        case engineIOv4Packet
        /// An Engine.IO v4 polling body.
        case engineIOv4Body
        /// An Engine.IO v3 text polling body.
        case engineIOv3Body
        /// Socket.IO v5 messages fed in order to one decoder.
        case socketIOv5
    }

    let id: String
    let layer: Layer
    /// The messages in order; the error must come from the last one.
    let input: [Frame]
    /// Free-text reasons are not compared (see ``ProtocolError/matches(_:)``).
    let expected: ProtocolError

    init(_ id: String, _ layer: Layer, _ input: [Frame], _ expected: ProtocolError) {
        self.id = id
        self.layer = layer
        self.input = input
        self.expected = expected
    }

    init(_ id: String, _ layer: Layer, _ text: String, _ expected: ProtocolError) {
        self.init(id, layer, [.text(text)], expected)
    }

    var testDescription: String { id }
}

/// vectors.md §10: every row must throw a `ProtocolError`, even where python accepts it.
@Suite("Rejected inputs (vectors §10)")
struct RejectionVectorTests {
    static let world = Data([0x77, 0x6F, 0x72, 0x6C, 0x64])

    static let vectors: [RejectionVector] = [
        RejectionVector("X-E01", .engineIOv4Packet, "", .emptyPacket),
        RejectionVector("X-E02", .engineIOv4Packet, "a123", .unknownPacketType("a")),
        RejectionVector("X-E03", .engineIOv4Packet, "7", .unknownPacketType("7")),
        RejectionVector("X-E04", .engineIOv4Body, "{", .unknownPacketType("{")),
        RejectionVector("X-E05", .engineIOv4Body, #"["a123", "a456"]"#, .unknownPacketType("[")),
        RejectionVector("X-E06", .engineIOv4Body, "4hello\u{1e}abc", .unknownPacketType("a")),
        RejectionVector("X-E07", .engineIOv3Body, "abc", .invalidPayload("")),
        RejectionVector("X-E08", .engineIOv3Body, "5:4hey", .invalidPayload("")),
        RejectionVector("X-E09", .engineIOv3Body, "4:4€", .invalidPayload("")),
        RejectionVector("X-E10", .engineIOv3Body, "x:4hey", .invalidPayload("")),
        RejectionVector("X-E11", .engineIOv3Body, "", .invalidPayload("")),
        RejectionVector("X-E12", .engineIOv3Body, "4:4hey2:4", .invalidPayload("")),
        // A Socket.IO string (layer SIO v5, fed whole to socket.io-parser in its test): CONNECT_ERROR
        // with ack id 42 and truncated JSON. The Engine.IO reading is checked in a test below.
        RejectionVector("X-S01", .socketIOv5, #"442["some","data""#, .invalidSocketPayload("")),
        RejectionVector("X-S02", .socketIOv5, #"0/admin,"invalid""#, .invalidSocketPayload("")),
        RejectionVector("X-S03", .socketIOv5, "0[]", .invalidSocketPayload("")),
        RejectionVector("X-S04", .socketIOv5, "1/admin,{}", .invalidSocketPayload("")),
        RejectionVector("X-S05", .socketIOv5, #"2/admin,"invalid"#, .invalidSocketPayload("")),
        RejectionVector("X-S06", .socketIOv5, "2/admin,{}", .invalidSocketPayload("")),
        RejectionVector("X-S07", .socketIOv5, #"2[{"toString":"foo"}]"#, .invalidSocketPayload("")),
        RejectionVector("X-S08", .socketIOv5, #"2[true,"foo"]"#, .invalidSocketPayload("")),
        RejectionVector("X-S09", .socketIOv5, #"2[null,"bar"]"#, .invalidSocketPayload("")),
        RejectionVector("X-S10", .socketIOv5, #"2["connect"]"#, .invalidSocketPayload("")),
        RejectionVector("X-S11", .socketIOv5, #"2["disconnect","123"]"#, .invalidSocketPayload("")),
        RejectionVector("X-S12", .socketIOv5, "2{}", .invalidSocketPayload("")),
        RejectionVector("X-S13", .socketIOv5, #"2abc["message-with-ack",1,"2",{"3":[false]}]"#, .invalidSocketPayload("")),
        RejectionVector("X-S14", .socketIOv5, "abc", .unknownPacketType("a")),
        RejectionVector("X-S15", .socketIOv5, "999", .unknownPacketType("9")),
        RejectionVector("X-S16", .socketIOv5, "5", .illegalAttachments),
        RejectionVector("X-S17", .socketIOv5, "51", .illegalAttachments),
        RejectionVector("X-S18", .socketIOv5, "5a-", .illegalAttachments),
        RejectionVector("X-S19", .socketIOv5, "51.23-", .illegalAttachments),
        RejectionVector("X-S20", .socketIOv5, #"511-["hello"]"#, .tooManyAttachments(11)),
        RejectionVector("X-S21", .socketIOv5, [.text(#"51-["hello",{"_placeholder":true,"num":1}]"#), .binary(world)],
                        .illegalAttachments),
        RejectionVector("X-S22", .socketIOv5, [.text(#"51-["hello",{"_placeholder":true,"num":"splice"}]"#), .binary(world)],
                        .illegalAttachments),
        RejectionVector("X-S23", .socketIOv5, [.binary(world)], .unexpectedBinary),
        RejectionVector("X-S24", .socketIOv5, [.text(#"51-["hello",{"_placeholder":true,"num":0}]"#), .text(#"2["hello"]"#)],
                        .unexpectedText),
        RejectionVector("X-S25", .socketIOv5, "3{}", .invalidSocketPayload("")),
        // The reference decoders accept it; the spec makes the payload mandatory and so do we.
        RejectionVector("X-S26", .socketIOv5, "2", .invalidSocketPayload("")),
    ]

    @Test("rejected", arguments: vectors)
    func rejected(_ vector: RejectionVector) throws {
        if vector.layer == .socketIOv5 {
            try expectSocketIORejection(vector)
            return
        }
        try #require(vector.input.count == 1)
        guard case .text(let text) = vector.input[0] else {
            Issue.record("\(vector.id): Engine.IO rows are text")
            return
        }
        expectRejection(vector) { () throws(ProtocolError) in
            switch vector.layer {
            case .engineIOv4Packet: _ = try EnginePacket.decode(text: text, version: .v4)
            case .engineIOv4Body: _ = try PollingPayload.decode(text, version: .v4)
            case .engineIOv3Body: _ = try PollingPayload.decode(text, version: .v3)
            case .socketIOv5: break
            }
        }
    }

    /// Feeds the row to one Socket.IO v5 decoder, then checks that the decoder reset itself.
    func expectSocketIORejection(_ vector: RejectionVector) throws {
        var decoder = SocketPacketDecoder(version: .v5)
        // Every message before the last is accepted and keeps the decoder waiting.
        for message in vector.input.dropLast() {
            let result: SocketPacket?
            switch message {
            case .text(let text): result = try decoder.decode(text: text)
            case .binary(let data): result = try decoder.decode(binary: data)
            }
            #expect(result == nil, "\(vector.id): packet delivered early")
        }
        expectRejection(vector) { () throws(ProtocolError) in
            switch vector.input.last {
            case .text(let text)?: _ = try decoder.decode(text: text)
            case .binary(let data)?: _ = try decoder.decode(binary: data)
            case nil: break
            }
        }

        // The decoder reset itself and works again, binary packets included.
        #expect(!decoder.isReconstructing, "\(vector.id): still reconstructing")
        #expect(try decoder.decode(text: #"2["ok",1]"#) == SocketPacket(kind: .event, data: ["ok", 1]), "\(vector.id)")
        #expect(try decoder.decode(text: #"51-["bin",{"_placeholder":true,"num":0}]"#) == nil, "\(vector.id)")
        #expect(try decoder.decode(binary: Data([0x01])) == SocketPacket(kind: .event, data: ["bin", .binary(Data([0x01]))]),
                "\(vector.id)")
    }

    func expectRejection(_ vector: RejectionVector, _ body: () throws(ProtocolError) -> Void) {
        let error = #expect(throws: ProtocolError.self, "\(vector.id)") { try body() }
        if let error {
            #expect(error.matches(vector.expected), "\(vector.id): got \(error), expected \(vector.expected)")
        }
    }

    @Test func xS01ReadAsEngineIOMessageIsAlsoRejected() throws {
        // The other reading of X-S01: Engine.IO `4` + Socket.IO EVENT id 2 with truncated JSON.
        let packet = try EnginePacket.decode(text: #"442["some","data""#, version: .v4)
        #expect(packet == .message(#"42["some","data""#))
        var decoder = SocketPacketDecoder(version: .v5)
        let error = #expect(throws: ProtocolError.self) { _ = try decoder.decode(text: #"42["some","data""#) }
        #expect(error?.matches(.invalidSocketPayload("")) == true)
        #expect(try decoder.decode(text: #"2["ok"]"#) == SocketPacket(kind: .event, data: ["ok"]))
    }

    @Test func validRecordsBeforeXE06AndXE12Decode() throws {
        // X-E06 and X-E12: the whole body is an error even though its first record is fine.
        #expect(try PollingPayload.decode("4hello", version: .v4) == [.message("hello")])
        #expect(try PollingPayload.decode("4:4hey", version: .v3) == [.message("hey")])
    }
}
