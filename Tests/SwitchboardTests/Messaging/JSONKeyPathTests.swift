import SocketIOProtocol
import Switchboard
import Testing

@Suite("JSONKeyPath")
struct JSONKeyPathTests {
    let json: JSONValue = [
        "msg_body": ["extra": ["order_no": "TAINIUBILE1234", "gone": .null], "items": [["sku": "a"], ["sku": "b"]]],
        "a.b": 1,
    ]

    @Test func dottedPathsWalkObjects() {
        #expect(JSONKeyPath("msg_body.extra.order_no").value(in: json) == "TAINIUBILE1234")
        #expect(JSONKeyPath("msg_body.extra.order_no").components == ["msg_body", "extra", "order_no"])
        #expect(("msg_body.extra.order_no" as JSONKeyPath).description == "msg_body.extra.order_no")
    }

    @Test func integerComponentsIndexArrays() {
        #expect(JSONKeyPath("msg_body.items.1.sku").value(in: json) == "b")
        #expect(JSONKeyPath("msg_body.items.2.sku").value(in: json) == nil)
        #expect(JSONKeyPath("msg_body.items.x").value(in: json) == nil)
    }

    @Test func missingAndNullAreDifferent() {
        #expect(JSONKeyPath("msg_body.extra.gone").value(in: json) == .null)
        #expect(JSONKeyPath("msg_body.extra.absent").value(in: json) == nil)
        #expect(JSONKeyPath("msg_body.extra.order_no.deeper").value(in: json) == nil)
    }

    @Test func keysWithDotsNeedComponents() {
        #expect(JSONKeyPath("a.b").value(in: json) == nil)
        #expect(JSONKeyPath(components: ["a.b"]).value(in: json) == 1)
    }
}
