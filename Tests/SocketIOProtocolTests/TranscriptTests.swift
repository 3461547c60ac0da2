import Foundation
import Testing
import SocketIOProtocol

/// One row (or two rows, for a binary packet and its attachment) of a vectors.md §11 transcript.
struct TranscriptStep: Sendable, CustomTestStringConvertible {
    enum Channel: Sendable {
        /// An HTTP long-polling body (text format).
        case polling(String)
        /// WebSocket messages, in order.
        case webSocket([Frame])
    }

    let id: String
    let version: EngineIOVersion
    /// C→S rows are also encoded from ``items`` and compared byte for byte; S→C rows come from
    /// python servers, whose formatting we read but do not reproduce (`40/admin`, key order).
    let fromClient: Bool
    let channel: Channel
    /// What the data decodes to.
    let items: [WireItem]

    var testDescription: String { id }

    /// Decodes the row as its receiver does.
    func decode() throws(ProtocolError) -> [WireItem] {
        let packets: [EnginePacket]
        switch channel {
        case .polling(let body):
            packets = try PollingPayload.decode(body, version: version)
        case .webSocket(let messages):
            var decoded: [EnginePacket] = []
            for message in messages { decoded.append(try EnginePacket.decode(message, version: version)) }
            packets = decoded
        }
        var decoder = SocketPacketDecoder(version: version.socketIOVersion)
        let items = try WireItem.decode(packets, with: &decoder)
        #expect(!decoder.isReconstructing, "\(id): attachments missing")
        return items
    }

    /// Encodes ``items`` as the client does and compares with the captured bytes.
    func expectEncodes() {
        let packets = WireItem.enginePackets(for: items)
        switch channel {
        case .polling(let body):
            expectSameBytes(PollingPayload.encode(packets, version: version), body, id)
        case .webSocket(let messages):
            let encoded = packets.map { $0.frame(version: version) }
            #expect(encoded.count == messages.count, "\(id): message count")
            for (actual, expected) in zip(encoded, messages) { expectSameBytes(actual, expected, id) }
        }
    }
}

/// vectors.md §11: every frame and body of the three transcripts.
@Suite("Session transcripts (vectors §11)")
struct TranscriptTests {
    // MARK: 11.1 Engine.IO v4 / Socket.IO v5 (python-socketio 5.18.1 server)

    static let open51 =
        #"{"sid":"cFgA3LSXVcSAVuDwAAAD","upgrades":["websocket"],"pingTimeout":2000,"pingInterval":2000,"maxPayload":1000000}"#

    static func v4(_ row: String, client: Bool, _ channel: TranscriptStep.Channel, _ items: [WireItem]) -> TranscriptStep {
        TranscriptStep(id: "11.1 #\(row)", version: .v4, fromClient: client, channel: channel, items: items)
    }

    static let transcript1: [TranscriptStep] = [
        v4("2", client: false, .polling("0" + open51), [.engine(.open(open51))]),
        v4("3", client: true, .polling("40"), [.socket(SocketPacket(kind: .connect))]),
        v4("6", client: false, .polling(#"42["welcome","hi"]\#u{1e}40{"sid":"dblBSMab4VcvkNk9AAAE"}"#), [
            .socket(.event("welcome", ["hi"])),
            .socket(SocketPacket(kind: .connect, data: ["sid": "dblBSMab4VcvkNk9AAAE"])),
        ]),
        v4("7", client: true, .polling(#"420["hello","polling"]\#u{1e}42["note","€😀"]"#), [
            .socket(.event("hello", ["polling"], id: 0)),
            .socket(.event("note", ["€😀"])),
        ]),
        v4("10", client: false, .polling(#"430["got polling"]"#), [.socket(.ack(["got polling"], id: 0))]),
        v4("13", client: true, .webSocket([.text("2probe")]), [.engine(.ping("probe"))]),
        v4("14", client: false, .polling("6"), [.engine(.noop)]),
        v4("15", client: false, .webSocket([.text("3probe")]), [.engine(.pong("probe"))]),
        v4("16", client: true, .webSocket([.text("5")]), [.engine(.upgrade)]),
        v4("17", client: true, .webSocket([.text(#"421["hello","world"]"#)]), [.socket(.event("hello", ["world"], id: 1))]),
        v4("18", client: false, .webSocket([.text(#"431["got world"]"#)]), [.socket(.ack(["got world"], id: 1))]),
        v4("19-20", client: true,
           .webSocket([.text(#"451-2["bin",{"_placeholder":true,"num":0}]"#), .binary(Data([0x01, 0x02, 0x03]))]),
           [.socket(.event("bin", [.binary(Data([0x01, 0x02, 0x03]))], id: 2))]),
        v4("21-22", client: false,
           .webSocket([.text(#"461-2[{"_placeholder":true,"num":0}]"#), .binary(Data([0x03, 0x02, 0x01]))]),
           [.socket(.ack([.binary(Data([0x03, 0x02, 0x01]))], id: 2))]),
        v4("23", client: false, .webSocket([.text("2")]), [.engine(.ping(""))]),
        v4("24", client: true, .webSocket([.text("3")]), [.engine(.pong(""))]),
        v4("25", client: true, .webSocket([.text("40/admin,")]), [.socket(SocketPacket(kind: .connect, namespace: "/admin"))]),
        v4("26", client: false, .webSocket([.text(#"40/admin,{"sid":"yVUgtxe8lBjqvgk6AAAF"}"#)]),
           [.socket(SocketPacket(kind: .connect, namespace: "/admin", data: ["sid": "yVUgtxe8lBjqvgk6AAAF"]))]),
        v4("27", client: true, .webSocket([.text("41/admin,")]), [.socket(SocketPacket(kind: .disconnect, namespace: "/admin"))]),
        v4("28", client: true, .webSocket([.text("41")]), [.socket(SocketPacket(kind: .disconnect))]),
        v4("29", client: true, .webSocket([.text("1")]), [.engine(.close)]),
    ]

    // MARK: 11.2 Engine.IO v3 / Socket.IO v4 (python-socketio 4.6.1 server)

    static let open42 =
        #"{"sid":"03ffcdc8b4e24a5eba9f870a4d08e4cc","upgrades":["websocket"],"pingTimeout":5000,"pingInterval":2000}"#

    static func v3(_ row: String, client: Bool, _ channel: TranscriptStep.Channel, _ items: [WireItem]) -> TranscriptStep {
        TranscriptStep(id: "11.2 #\(row)", version: .v3, fromClient: client, channel: channel, items: items)
    }

    static let transcript2: [TranscriptStep] = [
        v3("2", client: false, .polling("107:0" + open42 + #"18:42["welcome","hi"]2:40"#), [
            .engine(.open(open42)),
            .socket(.event("welcome", ["hi"])),
            .socket(SocketPacket(kind: .connect)),
        ]),
        v3("3", client: true, .polling("1:2"), [.engine(.ping(""))]),
        v3("6", client: false, .polling("1:3"), [.engine(.pong(""))]),
        v3("7", client: true, .polling(#"22:420["hello","polling"]16:42["note","€😀"]"#), [
            .socket(.event("hello", ["polling"], id: 0)),
            .socket(.event("note", ["€😀"])),
        ]),
        v3("10", client: false, .polling(#"18:430["got polling"]"#), [.socket(.ack(["got polling"], id: 0))]),
        v3("13", client: true, .webSocket([.text("2probe")]), [.engine(.ping("probe"))]),
        v3("14", client: false, .webSocket([.text("3probe")]), [.engine(.pong("probe"))]),
        v3("15", client: false, .polling("1:6"), [.engine(.noop)]),
        v3("16", client: true, .webSocket([.text("5")]), [.engine(.upgrade)]),
        v3("17", client: true, .webSocket([.text(#"421["hello","world"]"#)]), [.socket(.event("hello", ["world"], id: 1))]),
        v3("18", client: false, .webSocket([.text(#"431["got world"]"#)]), [.socket(.ack(["got world"], id: 1))]),
        v3("19-20", client: true,
           .webSocket([.text(#"451-2["bin",{"_placeholder":true,"num":0}]"#), .binary(Data([0x04, 0x01, 0x02, 0x03]))]),
           [.socket(.event("bin", [.binary(Data([0x01, 0x02, 0x03]))], id: 2))]),
        v3("21-22", client: false,
           .webSocket([.text(#"461-2[{"_placeholder":true,"num":0}]"#), .binary(Data([0x04, 0x03, 0x02, 0x01]))]),
           [.socket(.ack([.binary(Data([0x03, 0x02, 0x01]))], id: 2))]),
        v3("23", client: true, .webSocket([.text("2")]), [.engine(.ping(""))]),
        v3("24", client: false, .webSocket([.text("3")]), [.engine(.pong(""))]),
        v3("25", client: true, .webSocket([.text("40/admin,")]), [.socket(SocketPacket(kind: .connect, namespace: "/admin"))]),
        v3("26", client: false, .webSocket([.text("40/admin")]), [.socket(SocketPacket(kind: .connect, namespace: "/admin"))]),
        v3("27", client: true, .webSocket([.text("41/admin,")]), [.socket(SocketPacket(kind: .disconnect, namespace: "/admin"))]),
        v3("28", client: true, .webSocket([.text("41")]), [.socket(SocketPacket(kind: .disconnect))]),
        v3("29", client: true, .webSocket([.text("1")]), [.engine(.close)]),
    ]

    // MARK: 11.3 Connection state recovery (JS server test suite), v4 polling bodies

    static func recovery(_ row: String, client: Bool, _ body: String, _ items: [WireItem]) -> TranscriptStep {
        TranscriptStep(id: "11.3 #\(row)", version: .v4, fromClient: client, channel: .polling(body), items: items)
    }

    static let transcript3: [TranscriptStep] = [
        recovery("1", client: true, "40", [.socket(SocketPacket(kind: .connect))]),
        recovery("2", client: false, #"40{"sid":"<sid>","pid":"<pid>"}"#,
                 [.socket(SocketPacket(kind: .connect, data: ["sid": "<sid>", "pid": "<pid>"]))]),
        recovery("3", client: false, #"42["hello","<offset>"]"#, [.socket(.event("hello", ["<offset>"]))]),
        recovery("4", client: true, "1", [.engine(.close)]),
        recovery("6", client: true, #"40{"pid":"<pid>","offset":"<offset>"}"#,
                 [.socket(SocketPacket(kind: .connect, data: ["pid": "<pid>", "offset": "<offset>"]))]),
        recovery("7", client: false,
                 #"42["hello1","<o1>"]\#u{1e}42["hello2","<o2>"]\#u{1e}42["hello3","<o3>"]\#u{1e}40{"sid":"<sid>","pid":"<pid>"}"#, [
                     .socket(.event("hello1", ["<o1>"])),
                     .socket(.event("hello2", ["<o2>"])),
                     .socket(.event("hello3", ["<o3>"])),
                     .socket(SocketPacket(kind: .connect, data: ["sid": "<sid>", "pid": "<pid>"])),
                 ]),
        recovery("8", client: true, #"40{"pid":"foo","offset":"bar"}"#,
                 [.socket(SocketPacket(kind: .connect, data: ["pid": "foo", "offset": "bar"]))]),
        recovery("9", client: false, #"40{"sid":"<new sid>","pid":"<new pid>"}"#,
                 [.socket(SocketPacket(kind: .connect, data: ["sid": "<new sid>", "pid": "<new pid>"]))]),
    ]

    static let allSteps = transcript1 + transcript2 + transcript3

    @Test("decode", arguments: allSteps)
    func decode(_ step: TranscriptStep) throws {
        #expect(try step.decode() == step.items, "\(step.id)")
    }

    @Test("client rows encode", arguments: allSteps.filter(\.fromClient))
    func encode(_ step: TranscriptStep) {
        step.expectEncodes()
    }

    @Test func v3BodyLengthsCountUTF16Units() {
        // 11.2 #7: the emoji counts 2 units, the euro sign 1.
        #expect(#"42["note","€😀"]"#.utf16.count == 16)
        #expect(#"420["hello","polling"]"#.utf16.count == 22)
        #expect(("0" + Self.open42).utf16.count == 107)
    }

    @Test func recoveredMeansTheReplyCarriesThePidSent() throws {
        // 11.3: recovered = the reply's pid equals the pid sent in the CONNECT.
        func replyPid(_ step: TranscriptStep) throws -> String? {
            guard case .socket(let reply)? = try step.decode().last, reply.kind == .connect else { return nil }
            return reply.data?["pid"]?.stringValue
        }
        func sentPid(_ step: TranscriptStep) throws -> String? {
            guard case .socket(let connect)? = try step.decode().last else { return nil }
            return connect.data?["pid"]?.stringValue
        }
        let steps = Dictionary(uniqueKeysWithValues: Self.transcript3.map { ($0.id, $0) })
        let recoveryRequest = try #require(steps["11.3 #6"])
        let recovered = try #require(steps["11.3 #7"])
        let unknownRequest = try #require(steps["11.3 #8"])
        let fresh = try #require(steps["11.3 #9"])
        #expect(try replyPid(recovered) == sentPid(recoveryRequest))
        #expect(try replyPid(fresh) != sentPid(unknownRequest))
    }
}
