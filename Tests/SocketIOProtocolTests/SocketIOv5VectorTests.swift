import Foundation
import Testing
import SocketIOProtocol

/// One row of vectors.md §8 or §9: a Socket.IO packet, its text and its attachments.
struct SocketVector: Sendable, CustomTestStringConvertible {
    let id: String
    let packet: SocketPacket
    /// The Socket.IO text, without the Engine.IO `4` prefix.
    let text: String
    let attachments: [Data]
    /// Marked "decode only" in the table.
    let decodeOnly: Bool

    init(_ id: String, _ packet: SocketPacket, _ text: String, _ attachments: [Data] = [], decodeOnly: Bool = false) {
        self.id = id
        self.packet = packet
        self.text = text
        self.attachments = attachments
        self.decodeOnly = decodeOnly
    }

    var testDescription: String { id }

    func expectEncodes() {
        let encoded = SocketPacketEncoder.encode(packet)
        expectSameBytes(encoded.text, text, id)
        #expect(encoded.attachments == attachments, "\(id): attachments")
        // On the wire: `4` + text, then one binary message per attachment.
        #expect(encoded.enginePackets == [.message(text)] + attachments.map(EnginePacket.binaryMessage), "\(id): messages")
    }

    func expectDecodes(version: SocketIOVersion) throws {
        var decoder = SocketPacketDecoder(version: version)
        let decoded = try decodeSocketPacket(text: text, attachments: attachments, with: &decoder, row: id)
        #expect(decoded == packet.asDecoded, "\(id)")
        #expect(!decoder.isReconstructing, "\(id): decoder still waiting")
    }
}

/// vectors.md §8: Socket.IO v5 packets.
@Suite("Socket.IO v5 packets (vectors §8)")
struct SocketIOv5VectorTests {
    static let vectors: [SocketVector] = [
        SocketVector("S5-01", SocketPacket(kind: .connect), "0"),
        SocketVector("S5-02", SocketPacket(kind: .connect, namespace: "/admin", data: ["sid": "oSO0OpakMV_3jnilAAAA"]),
                     #"0/admin,{"sid":"oSO0OpakMV_3jnilAAAA"}"#),
        SocketVector("S5-03", SocketPacket(kind: .connect, data: ["token": "123"]), #"0{"token":"123"}"#),
        SocketVector("S5-04", SocketPacket(kind: .connect, namespace: "/woot", data: ["token": "123"]), #"0/woot,{"token":"123"}"#),
        SocketVector("S5-05", SocketPacket(kind: .connectError, data: ["message": "Not authorized"]),
                     #"4{"message":"Not authorized"}"#),
        SocketVector("S5-06", SocketPacket(kind: .connectError, namespace: "/random", data: ["message": "Invalid namespace"]),
                     #"4/random,{"message":"Invalid namespace"}"#),
        SocketVector("S5-07", SocketPacket(kind: .connectError,
                                           data: ["message": "Connection rejected by server", "data": ["code": 42]]),
                     #"4{"message":"Connection rejected by server","data":{"code":42}}"#),
        SocketVector("S5-08", SocketPacket(kind: .connectError, data: "Unauthorized"), #"4"Unauthorized""#),
        SocketVector("S5-09", SocketPacket(kind: .event, data: ["foo"]), #"2["foo"]"#),
        SocketVector("S5-10", SocketPacket(kind: .event, namespace: "/admin", data: ["bar"]), #"2/admin,["bar"]"#),
        SocketVector("S5-11", SocketPacket(kind: .event, id: 12, data: ["foo"]), #"212["foo"]"#),
        SocketVector("S5-12", SocketPacket(kind: .ack, namespace: "/admin", id: 13, data: ["bar"]), #"3/admin,13["bar"]"#),
        SocketVector("S5-13", SocketPacket(kind: .ack, id: 12, data: []), "312[]"),
        SocketVector("S5-14", SocketPacket(kind: .event, namespace: "/test", id: 1, data: ["a", 1, [:]]), #"2/test,1["a",1,{}]"#),
        SocketVector("S5-15", SocketPacket(kind: .event, data: [1, "a", [:]]), #"2[1,"a",{}]"#),
        SocketVector("S5-16", SocketPacket(kind: .ack, id: 123, data: ["a", 1, [:]]), #"3123["a",1,{}]"#),
        SocketVector("S5-17", SocketPacket(kind: .disconnect), "1"),
        SocketVector("S5-18", SocketPacket(kind: .disconnect, namespace: "/admin"), "1/admin,"),
        SocketVector("S5-19", SocketPacket(kind: .event, data: ["baz", .binary(Data([0x01, 0x02, 0x03, 0x04]))]),
                     #"51-["baz",{"_placeholder":true,"num":0}]"#, [Data([0x01, 0x02, 0x03, 0x04])]),
        SocketVector("S5-20", SocketPacket(kind: .event, namespace: "/admin",
                                           data: ["baz", .binary(Data([0x01, 0x02])), .binary(Data([0x03, 0x04]))]),
                     #"52-/admin,["baz",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#,
                     [Data([0x01, 0x02]), Data([0x03, 0x04])]),
        SocketVector("S5-21", SocketPacket(kind: .ack, id: 15, data: ["bar", .binary(Data([0x01, 0x02, 0x03, 0x04]))]),
                     #"61-15["bar",{"_placeholder":true,"num":0}]"#, [Data([0x01, 0x02, 0x03, 0x04])]),
        SocketVector("S5-22", SocketPacket(kind: .event, namespace: "/cool", id: 23,
                                           data: ["a", ["b": ["c", .binary(Data([0x61, 0x62, 0x63]))]]]),
                     #"51-/cool,23["a",{"b":["c",{"_placeholder":true,"num":0}]}]"#, [Data([0x61, 0x62, 0x63])]),
        SocketVector("S5-23", SocketPacket(kind: .event,
                                           data: ["message", .binary(Data([0x01, 0x02, 0x03])), .binary(Data([0x04, 0x05, 0x06]))]),
                     #"52-["message",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#,
                     [Data([0x01, 0x02, 0x03]), Data([0x04, 0x05, 0x06])]),
        SocketVector("S5-24", SocketPacket(kind: .ack, id: 789,
                                           data: [.binary(Data([0x01, 0x02, 0x03])), .binary(Data([0x04, 0x05, 0x06]))]),
                     #"62-789[{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#,
                     [Data([0x01, 0x02, 0x03]), Data([0x04, 0x05, 0x06])]),
        SocketVector("S5-25", SocketPacket(kind: .event, id: 456, data: ["message-with-ack", 1, "2", ["3": [false]]]),
                     #"2456["message-with-ack",1,"2",{"3":[false]}]"#),
        SocketVector("S5-26", SocketPacket(kind: .ack, id: 456, data: [1, "2", ["3": [false]]]), #"3456[1,"2",{"3":[false]}]"#),
        SocketVector("S5-27", SocketPacket(kind: .event, id: 0, data: ["echo", 1]), #"20["echo",1]"#),
        SocketVector("S5-28", SocketPacket(kind: .ack, id: 0, data: [nil]), "30[null]"),
        SocketVector("S5-29", SocketPacket(kind: .connect, data: ["sid": "wZX3oN0bSVIhsaknAAAI", "pid": "bxGdYqTTYoMUBAOpAAAH"]),
                     #"0{"sid":"wZX3oN0bSVIhsaknAAAI","pid":"bxGdYqTTYoMUBAOpAAAH"}"#),
        SocketVector("S5-30", SocketPacket(kind: .event, data: ["chat", "hello", "MKpRwxT.0"]), #"2["chat","hello","MKpRwxT.0"]"#),
        SocketVector("S5-31", SocketPacket(kind: .connect,
                                           data: ["pid": "bxGdYqTTYoMUBAOpAAAH", "offset": "MKpRwxT.0", "token": "abc"]),
                     #"0{"pid":"bxGdYqTTYoMUBAOpAAAH","offset":"MKpRwxT.0","token":"abc"}"#),
        SocketVector("S5-32", SocketPacket(kind: .event, data: ["emoji", "😀€"]), #"2["emoji","😀€"]"#),
        SocketVector("S5-33", SocketPacket(kind: .event, data: ["b", .binary(Data())]),
                     #"51-["b",{"_placeholder":true,"num":0}]"#, [Data()]),
    ]

    @Test("encode", arguments: vectors.filter { !$0.decodeOnly })
    func encode(_ vector: SocketVector) {
        vector.expectEncodes()
    }

    @Test("decode", arguments: vectors)
    func decode(_ vector: SocketVector) throws {
        try vector.expectDecodes(version: .v5)
    }

    @Test func pythonEscapedFormOfS532DecodesToTheSameValue() throws {
        // S5-32 note: python writes \ud83d\ude00\u20ac; both decode to the same value.
        var decoder = SocketPacketDecoder(version: .v5)
        let packet = try decoder.decode(text: #"2["emoji","\ud83d\ude00\u20ac"]"#)
        #expect(packet == SocketPacket(kind: .event, data: ["emoji", "😀€"]))
    }

    @Test func eventNamedByANumberTooLargeForADoubleIsNamedInfinityAsInJS() throws {
        // Found by Fuzz/FuzzSocketIOPacket: `2[5e506]` is a valid EVENT (its name is a number,
        // +Infinity once parsed, as JSON.parse reads it), but its name came out as "null".
        var decoder = SocketPacketDecoder(version: .v5)
        #expect(try decoder.decode(text: "2[5e506]")?.eventName == "Infinity")
        #expect(try decoder.decode(text: "2[-1e999,1]")?.eventName == "-Infinity")
        #expect(try decoder.decode(text: "2[1e21]")?.eventName == "1e+21")
    }
}
