import Foundation
import SocketIOProtocol
import SocketIOServer
import Testing

/// The cluster messages byte for byte as socket.io's adapters (socket.io-adapter's
/// `ClusterAdapterWithHeartbeat`, published by `@socket.io/postgres-adapter`) write them with
/// `JSON.stringify`: the member order is the order their code builds each object in (`type`,
/// `data`, then `uid` and `nsp`, added last by `publishAndReturnOffset`/`publishResponse`).
@Suite("Cluster messages in socket.io's wire format")
struct ClusterMessageTests {
    static let uid = "9c3a1b2d4e5f6071"
    static let options = ClusterBroadcastOptions(rooms: ["room1"], except: ["muted"], flags: [:])

    static let vectors: [(ClusterPayload, String)] = [
        (.none(.initialHeartbeat), #"{"type":1,"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#),
        (.none(.heartbeat), #"{"type":2,"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#),
        (
            .broadcast(packet: ClusterPacket(event: "news", items: ["hello", 1], namespace: "/"), options: options, requestId: nil),
            #"{"type":3,"data":{"packet":{"type":2,"data":["news","hello",1],"nsp":"/"},"opts":{"rooms":["room1"],"except":["muted"],"flags":{}}},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .broadcast(packet: ClusterPacket(event: "q", items: [], namespace: "/"), options: ClusterBroadcastOptions(flags: ["timeout": 5000]), requestId: "a1b2c3d4e5f60718"),
            #"{"type":3,"data":{"packet":{"type":2,"data":["q"],"nsp":"/"},"requestId":"a1b2c3d4e5f60718","opts":{"rooms":[],"except":[],"flags":{"timeout":5000}}},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .socketsJoin(options: options, rooms: ["r2"]),
            #"{"type":4,"data":{"opts":{"rooms":["room1"],"except":["muted"],"flags":{}},"rooms":["r2"]},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .socketsLeave(options: options, rooms: ["r2"]),
            #"{"type":5,"data":{"opts":{"rooms":["room1"],"except":["muted"],"flags":{}},"rooms":["r2"]},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .disconnectSockets(options: options, close: true),
            #"{"type":6,"data":{"opts":{"rooms":["room1"],"except":["muted"],"flags":{}},"close":true},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .fetchSockets(options: ClusterBroadcastOptions(), requestId: "0f1e2d3c4b5a6978"),
            #"{"type":7,"data":{"opts":{"rooms":[],"except":[],"flags":{}},"requestId":"0f1e2d3c4b5a6978"},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .fetchSocketsResponse(requestId: "0f1e2d3c4b5a6978", sockets: [
                RemoteSocket(id: "abc", handshake: ["url": "/socket.io/?EIO=4&transport=websocket"], rooms: ["abc", "room1"], data: ["user": "ann"]),
            ]),
            #"{"type":8,"data":{"requestId":"0f1e2d3c4b5a6978","sockets":[{"id":"abc","handshake":{"url":"/socket.io/?EIO=4&transport=websocket"},"rooms":["abc","room1"],"data":{"user":"ann"}}]},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (.serverSideEmit(packet: ["hello", "world"], requestId: nil), #"{"type":9,"data":{"packet":["hello","world"]},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#),
        (
            .serverSideEmit(packet: ["ping"], requestId: "1122334455667788"),
            #"{"type":9,"data":{"requestId":"1122334455667788","packet":["ping"]},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .serverSideEmitResponse(requestId: "1122334455667788", value: "pong"),
            #"{"type":10,"data":{"requestId":"1122334455667788","packet":"pong"},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .broadcastClientCount(requestId: "a1b2c3d4e5f60718", count: 2),
            #"{"type":11,"data":{"requestId":"a1b2c3d4e5f60718","clientCount":2},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (
            .broadcastAck(requestId: "a1b2c3d4e5f60718", value: ["ok": true]),
            #"{"type":12,"data":{"requestId":"a1b2c3d4e5f60718","packet":{"ok":true}},"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#
        ),
        (.none(.adapterClose), #"{"type":13,"uid":"9c3a1b2d4e5f6071","nsp":"/"}"#),
    ]

    @Test("every message type encodes to socket.io's JSON and decodes back to the same payload", arguments: 0..<vectors.count)
    func vector(_ index: Int) throws {
        let (payload, json) = Self.vectors[index]
        let message = ClusterMessage(uid: Self.uid, namespace: "/", payload: payload)
        #expect(message.json.jsonString == json)
        let decoded = try ClusterMessage(json: try JSONValue(parsing: json))
        #expect(decoded == message)
        #expect(try decoded.payload == payload)
        #expect(decoded.type.rawValue == (try JSONValue(parsing: json))["type"]?.intValue)
    }

    @Test("our numbering travels as a last top-level seq member, which socket.io ignores")
    func sequence() throws {
        let message = ClusterMessage(uid: Self.uid, namespace: "/", payload: .none(.heartbeat), sequence: 42)
        #expect(message.json.jsonString == #"{"type":2,"uid":"9c3a1b2d4e5f6071","nsp":"/","seq":42}"#)
        #expect(try ClusterMessage(json: message.json) == message)
        #expect(throws: ClusterMessageError.wrongType("seq")) {
            try ClusterMessage(json: try JSONValue(parsing: #"{"type":2,"uid":"u","nsp":"/","seq":"x"}"#))
        }
        #expect(throws: ClusterMessageError.wrongType("seq")) {
            try ClusterMessage(json: try JSONValue(parsing: #"{"type":2,"uid":"u","nsp":"/","seq":0}"#))
        }
    }

    @Test("the same messages through MessagePack (the attachment path) decode to the same values")
    func messagePackRoundTrip() throws {
        for (payload, _) in Self.vectors {
            let message = ClusterMessage(uid: Self.uid, namespace: "/chat", payload: payload)
            let bytes = MessagePackValue(json: message.json).encoded
            let back = try ClusterMessage(json: try JSONValue(messagePack: try MessagePackValue(decoding: bytes)))
            #expect(try back.payload == payload)
        }
        // Binary stays binary (a Buffer in Node's packet), which JSON cannot carry.
        let binary = ClusterPayload.broadcast(
            packet: ClusterPacket(event: "file", items: [.binary(Data([0, 1, 255]))], namespace: "/"),
            options: ClusterBroadcastOptions(), requestId: nil
        )
        let message = ClusterMessage(uid: Self.uid, namespace: "/", payload: binary)
        let back = try ClusterMessage(json: try JSONValue(messagePack: try MessagePackValue(decoding: MessagePackValue(json: message.json).encoded)))
        #expect(try back.payload == binary)
    }

    @Test("what Node's adapter may send that we do not: extra members, a numeric-string-free packet with an id, a null requestId")
    func tolerantReading() throws {
        let json = #"{"type":3,"data":{"packet":{"type":2,"data":["e"],"nsp":"/","id":4},"opts":{"rooms":[],"except":[],"flags":{"volatile":true,"local":false}},"extra":1},"uid":"u","nsp":"/","future":true}"#
        let message = try ClusterMessage(json: try JSONValue(parsing: json))
        guard case .broadcast(let packet, let options, nil) = try message.payload else {
            Issue.record("not a broadcast without request id")
            return
        }
        #expect(packet.id == 4 && packet.event == "e" && packet.items.isEmpty)
        #expect(options.isVolatile)
    }

    /// A number from another server becomes a timer here: Node's longest timer (2^31 - 1 ms) at
    /// most, for a flag larger or infinite (`Duration.milliseconds` traps beyond ~1.7e23, and
    /// `Duration` arithmetic long before); what is no duration at all is none.
    @Test("a broadcast's timeout flag: milliseconds, at most 2^31 - 1 (also when infinite); NaN, negative or not a number is none")
    func timeoutFlag() {
        func timeout(_ value: JSONValue) -> Duration? { ClusterBroadcastOptions(flags: ["timeout": value]).timeout }
        let longest = Duration.milliseconds(2_147_483_647)
        #expect(timeout(5000) == .seconds(5))
        #expect(timeout(0) == .zero)
        #expect(timeout(.number(2_147_483_647)) == longest)
        #expect(timeout(.number(1e300)) == longest)
        #expect(timeout(.number(.infinity)) == longest)
        #expect(timeout(.number(.nan)) == nil)
        #expect(timeout(.number(-5)) == nil)
        #expect(timeout(.number(-.infinity)) == nil)
        #expect(timeout("5000") == nil)
        #expect(ClusterBroadcastOptions().timeout == nil)
    }

    @Test("malformed messages are typed errors", arguments: [
        (#"[]"#, ClusterMessageError.notAnObject),
        (#"{"type":3,"nsp":"/"}"#, .missing("uid")),
        (#"{"type":99,"uid":"u","nsp":"/"}"#, .unknownType(99)),
        (#"{"uid":"u","nsp":"/"}"#, .missing("type")),
        (#"{"type":3,"uid":"u","nsp":"/","data":"x"}"#, .wrongType("data")),
    ])
    func malformed(_ json: String, _ error: ClusterMessageError) throws {
        #expect(throws: error) { try ClusterMessage(json: try JSONValue(parsing: json)) }
    }

    @Test("payloads missing what their type requires are typed errors")
    func malformedPayloads() throws {
        let cases: [(ClusterMessageType, JSONObject?, ClusterMessageError)] = [
            (.broadcast, nil, .missing("packet")),
            (.broadcast, ["packet": ["type": 2, "data": ["e"]], "opts": "x"], .wrongType("opts")),
            (.socketsJoin, ["opts": [:], "rooms": [1]], .wrongType("rooms")),
            (.fetchSockets, ["opts": [:]], .missing("requestId")),
            (.broadcastClientCount, ["requestId": "r", "clientCount": -1], .missing("clientCount")),
            (.serverSideEmit, ["packet": []], .missing("packet")),
        ]
        for (type, data, error) in cases {
            let message = ClusterMessage(uid: "u", namespace: "/", type: type, data: data)
            #expect(throws: error) { _ = try message.payload }
        }
    }
}
