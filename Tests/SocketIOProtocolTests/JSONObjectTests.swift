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

@Suite struct JSONObjectLargeTests {
    @Test func largeObjectsKeepOrderLookupsAndLastDuplicate() throws {
        var text = "{"
        for i in 0..<50_000 { text += "\"k\(i)\":\(i)," }
        text += "\"k7\":\"last\"}"
        let value = try JSONValue(parsing: text)
        let object = try #require(value.objectValue)
        #expect(object.count == 50_000)
        #expect(object["k49999"] == 49_999)
        #expect(object["k7"] == "last", "a duplicate key keeps the last value, in place")
        #expect(object.keys.prefix(3) == ["k0", "k1", "k2"])
    }

    @Test func removingFromALargeObjectKeepsLookupsRight() {
        var object = JSONObject((0..<40).map { ("k\($0)", JSONValue.number(Double($0))) })
        object["k3"] = nil
        #expect(object["k3"] == nil)
        #expect(object["k39"] == 39)
        #expect(object.count == 39)
        object["new"] = "x"
        #expect(object.keys.last == "new")
        #expect(object["new"] == "x")
    }
}
