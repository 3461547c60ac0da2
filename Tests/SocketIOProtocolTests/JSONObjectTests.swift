import Testing
import SocketIOProtocol

@Suite struct JSONObjectTests {
    @Test func keepsInsertionOrderAndReplacesInPlace() {
        var object: JSONObject = ["b": 1, "a": 2]
        object["b"] = 3
        object["c"] = 4
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["b"] == 3)
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
    }

    @Test func equalityIgnoresOrder() {
        let lhs: JSONObject = ["a": 1, "b": "x"]
        let rhs: JSONObject = ["b": "x", "a": 1]
        #expect(lhs == rhs)
        #expect(lhs.hashValue == rhs.hashValue)
        #expect(lhs != ["a": 1, "b": "y"])
    }

    @Test func numbersFollowJavaScript() {
        #expect(JSONValue.number(1) == 1.0)
        #expect(JSONValue.string("1") != JSONValue.number(1))
    }
}
