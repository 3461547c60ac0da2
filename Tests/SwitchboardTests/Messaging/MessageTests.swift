import SocketIOProtocol
import Switchboard
import Testing

@Suite("Message")
struct MessageTests {
    @Test func readsIdBodyAndKeepsTheWholeJSON() throws {
        let json = orderMessage("00544", order: "TAINIUBILE1234")
        let message = try Message(json: json)
        #expect(message.id == "00544")
        #expect(message.body["type"] == "order_status_change")
        #expect(message.json == json)
        #expect(message["msg_body.extra.order_no"] == "TAINIUBILE1234")
        #expect(!message.processed)
    }

    @Test func numberIdsAreNotStringIds() throws {
        let number = try Message(json: ["msg_id": 1, "msg_body": [:]])
        let string = try Message(json: ["msg_id": "1", "msg_body": [:]])
        #expect(number.id == .number(1))
        #expect(string.id == .string("1"))
        #expect(number.id != string.id)
    }

    @Test func formatPathsAreConfigurable() throws {
        let format = MessageFormat(idPath: "meta.id", bodyPath: "payload")
        let message = try Message(json: ["meta": ["id": "x-1"], "payload": ["n": 2]], format: format)
        #expect(message.id == "x-1")
        #expect(message.body == ["n": 2])
        #expect(throws: MessageRejection.missingID("meta.id")) { try Message(json: orderMessage("1", order: "A"), format: format) }
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let json: JSONValue
        let rejection: MessageRejection
        var testDescription: String { json.jsonString }
    }

    @Test(arguments: [
        Malformed(json: "hello", rejection: .notAnObject("a string")),
        Malformed(json: [1, 2], rejection: .notAnObject("an array")),
        Malformed(json: ["msg_body": [:]], rejection: .missingID("msg_id")),
        Malformed(json: ["msg_id": .null, "msg_body": [:]], rejection: .invalidID("msg_id", "null")),
        Malformed(json: ["msg_id": ["nested": 1], "msg_body": [:]], rejection: .invalidID("msg_id", "an object")),
        Malformed(json: ["msg_id": "1"], rejection: .missingBody("msg_body")),
    ])
    func malformedMessagesAreRejectedWithTheReason(_ example: Malformed) {
        #expect(throws: example.rejection) { try Message(json: example.json) }
        #expect(!example.rejection.description.isEmpty)
    }

    @Test func decodesTheBody() throws {
        struct Status: Decodable { let type: String; let extra: [String: String] }
        let status = try Message(json: orderMessage("1", order: "A")).decodeBody(as: Status.self)
        #expect(status.type == "order_status_change")
        #expect(status.extra["order_no"] == "A")
    }
}
