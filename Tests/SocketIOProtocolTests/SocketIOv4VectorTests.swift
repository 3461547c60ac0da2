import Foundation
import Testing
import SocketIOProtocol

/// vectors.md §9: Socket.IO v4 packets (over Engine.IO v3). Binary rows are given with types 5/6;
/// the decoder reports them as EVENT/ACK.
@Suite("Socket.IO v4 packets (vectors §9)")
struct SocketIOv4VectorTests {
    static let vectors: [SocketVector] = [
        SocketVector("S4-01", SocketPacket(kind: .connect, namespace: "/admin"), "0/admin,"),
        SocketVector("S4-02", SocketPacket(kind: .connect, namespace: "/admin?token=1234&uid=abcd"), "0/admin?token=1234&uid=abcd,"),
        SocketVector("S4-03", SocketPacket(kind: .disconnect, namespace: "/admin"), "1/admin,"),
        SocketVector("S4-04", SocketPacket(kind: .event, data: ["hello", 1]), #"2["hello",1]"#),
        SocketVector("S4-05", SocketPacket(kind: .event, namespace: "/admin", id: 456, data: ["project:delete", 123]),
                     #"2/admin,456["project:delete",123]"#),
        SocketVector("S4-06", SocketPacket(kind: .ack, namespace: "/admin", id: 456, data: []), "3/admin,456[]"),
        SocketVector("S4-07", SocketPacket(kind: .connectError, namespace: "/admin", data: "Not authorized"),
                     #"4/admin,"Not authorized""#),
        SocketVector("S4-08", SocketPacket(kind: .binaryEvent, data: ["hello", .binary(Data([0x01, 0x02, 0x03]))]),
                     #"51-["hello",{"_placeholder":true,"num":0}]"#, [Data([0x01, 0x02, 0x03])]),
        SocketVector("S4-09", SocketPacket(kind: .binaryEvent, namespace: "/admin", id: 456,
                                           data: ["project:delete", .binary(Data([0x01, 0x02, 0x03]))]),
                     #"51-/admin,456["project:delete",{"_placeholder":true,"num":0}]"#, [Data([0x01, 0x02, 0x03])]),
        SocketVector("S4-10", SocketPacket(kind: .binaryAck, namespace: "/admin", id: 456, data: [.binary(Data([0x03, 0x02, 0x01]))]),
                     #"61-/admin,456[{"_placeholder":true,"num":0}]"#, [Data([0x03, 0x02, 0x01])]),
        SocketVector("S4-11", SocketPacket(kind: .connect), "0"),
        SocketVector("S4-12", SocketPacket(kind: .disconnect, namespace: "/admin"), "1/admin", decodeOnly: true),
    ]

    @Test("encode", arguments: vectors.filter { !$0.decodeOnly })
    func encode(_ vector: SocketVector) {
        vector.expectEncodes()
    }

    @Test("decode", arguments: vectors)
    func decode(_ vector: SocketVector) throws {
        try vector.expectDecodes(version: .v4)
    }
}
