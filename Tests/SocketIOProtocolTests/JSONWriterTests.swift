import Foundation
import Testing
import SocketIOProtocol

@Suite struct JSONWriterTests {
    @Test func replacesBinaryWithNumberedPlaceholders() {
        let value: JSONValue = ["baz", .binary(Data([1, 2])), .binary(Data([3, 4]))]
        var attachments: [Data] = []
        let json = value.jsonString(extractingAttachmentsInto: &attachments)
        #expect(json == #"["baz",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
        #expect(attachments == [Data([1, 2]), Data([3, 4])])
    }

    @Test func findsNestedBinaryInTraversalOrder() {
        let value: JSONValue = ["a", ["b": ["c", .binary(Data([0xFF]))]]]
        var attachments: [Data] = []
        #expect(value.jsonString(extractingAttachmentsInto: &attachments) == #"["a",{"b":["c",{"_placeholder":true,"num":0}]}]"#)
        #expect(attachments == [Data([0xFF])])

        let object: JSONValue = ["x": .binary(Data([1])), "y": [.binary(Data([2])), ["z": .binary(Data([3]))]]]
        attachments = []
        #expect(
            object.jsonString(extractingAttachmentsInto: &attachments)
                == #"{"x":{"_placeholder":true,"num":0},"y":[{"_placeholder":true,"num":1},{"z":{"_placeholder":true,"num":2}}]}"#)
        #expect(attachments == [Data([1]), Data([2]), Data([3])])
    }

    @Test func numbersPlaceholdersFromExistingAttachments() {
        var attachments = [Data([9])]
        var buffer = Array("451-".utf8)
        JSONValue.array([.binary(Data([7]))]).write(to: &buffer, attachments: &attachments)
        #expect(String(decoding: buffer, as: UTF8.self) == #"451-[{"_placeholder":true,"num":1}]"#)
        #expect(attachments == [Data([9]), Data([7])])
    }

    @Test func writesBinaryAsBase64ObjectsWhenStandalone() {
        let value: JSONValue = ["file": .binary(Data([1, 2, 3])), "empty": .binary(Data())]
        #expect(value.jsonString == #"{"file":{"base64":"AQID"},"empty":{"base64":""}}"#)
        var buffer: [UInt8] = []
        var attachments: [Data] = []
        value.write(to: &buffer, binary: .base64Object, attachments: &attachments)
        #expect(attachments.isEmpty)
        #expect(String(decoding: buffer, as: UTF8.self) == value.jsonString)
    }

    @Test func keepsKeyOrder() {
        let value: JSONValue = ["pid": "bxGdYqTTYoMUBAOpAAAH", "offset": "MKpRwxT.0", "token": "abc"]
        #expect(value.jsonString == #"{"pid":"bxGdYqTTYoMUBAOpAAAH","offset":"MKpRwxT.0","token":"abc"}"#)
        #expect(value.description == value.jsonString)
        #expect("\(value)" == value.jsonString)
    }

    @Test func writesScalarsAndEmptyContainers() {
        #expect(JSONValue.null.jsonString == "null")
        #expect(JSONValue.bool(true).jsonString == "true")
        #expect(JSONValue.bool(false).jsonString == "false")
        #expect(JSONValue.array([]).jsonString == "[]")
        #expect(JSONValue.object([:]).jsonString == "{}")
        #expect(JSONValue.array([nil, [], ["a": nil]]).jsonString == #"[null,[],{"a":null}]"#)
    }

    @Test func escapesStringsLikeJSONStringify() {
        let value = JSONValue.string("\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1}\u{1F} \u{7F}é😀\u{2028}")
        #expect(value.jsonString == "\"\\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u0001\\u001f \u{7F}é😀\u{2028}\"")
        #expect(JSONValue.string("").jsonString == #""""#)
        #expect(JSONValue.string("plain").jsonString == #""plain""#)
        #expect(JSONValue.object(["k\"ey": "v\n"]).jsonString == #"{"k\"ey":"v\n"}"#)
    }

    @Test(arguments: [
        (0, "0"), (-0.0, "0"), (1, "1"), (-5, "-5"), (1_000_000, "1000000"), (1.5, "1.5"), (-1.5, "-1.5"),
        (0.1, "0.1"), (123.456, "123.456"), (0.1 + 0.2, "0.30000000000000004"), (4.35, "4.35"),
        (1e20, "100000000000000000000"), (1e21, "1e+21"), (1.5e21, "1.5e+21"), (1.5e300, "1.5e+300"),
        (9_007_199_254_740_992, "9007199254740992"), (9_007_199_254_740_994, "9007199254740994"),
        (1_152_921_504_606_846_976, "1152921504606847000"), (123_456_789.123, "123456789.123"),
        (0.000001, "0.000001"), (0.0000015, "0.0000015"), (1e-7, "1e-7"), (1.2345e-7, "1.2345e-7"),
        (123e-20, "1.23e-18"), (.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-1e-7, "-1e-7"), (2.5e-5, "0.000025"), (100.5, "100.5"), (1e16, "10000000000000000"),
        (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
    ] as [(Double, String)])
    func writesNumbersLikeJavaScript(number: Double, expected: String) {
        #expect(JSONValue.number(number).jsonString == expected)
    }

    @Test func roundTripsThroughTheParser() throws {
        let value: JSONValue = [
            "s": "tab\there \"quoted\" 中文 😀 \u{1}", "n": [0, -1, 0.5, 1e-9, 1e300, 12_345_678_901_234],
            "o": ["nested": [true, false, nil]], "e": [:],
        ]
        #expect(try JSONValue(parsing: value.jsonString) == value)
        let reparsed = try JSONValue(parsing: value.jsonString)
        #expect(reparsed.jsonString == value.jsonString)
    }
}
