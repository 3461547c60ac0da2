import Foundation
import Testing
import SocketIOProtocol

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(parsing: #" { "a" : [ 1 , -2.5 , true , false , null , "x" , { } , [ ] ] } "#)
        #expect(value == ["a": [1, -2.5, true, false, nil, "x", .object([:]), []]])
    }

    @Test func topLevelScalarsAndWhitespace() throws {
        #expect(try JSONValue(parsing: "\t\r\n 42 \n") == 42)
        #expect(try JSONValue(parsing: #""hi""#) == "hi")
        #expect(try JSONValue(parsing: "null") == nil)
        #expect(try JSONValue(parsing: "true") == true)
    }

    @Test func acceptsEveryInputForm() throws {
        let text = #"xx["a",1]"#
        let expected: JSONValue = ["a", 1]
        #expect(try JSONValue(parsing: text.dropFirst(2)) == expected)
        #expect(try JSONValue(parsing: Data(text.utf8).dropFirst(2)) == expected)
        let bytes = Array(text.utf8.dropFirst(2))
        let parsed = try bytes.withUnsafeBytes { buffer throws(JSONError) in try JSONValue(parsing: buffer) }
        #expect(parsed == expected)
    }

    @Test func decodesEveryEscape() throws {
        let value = try JSONValue(parsing: #""\"\\\/\b\f\n\r\t\u0041\u00e9\u4e2d\u0000""#)
        #expect(value == .string("\"\\/\u{8}\u{C}\n\r\tA\u{E9}\u{4E2D}\u{0}"))
    }

    @Test func keepsNonASCIIAndMixesEscapesWithRuns() throws {
        #expect(try JSONValue(parsing: #""héllo wörld 😀""#) == "héllo wörld 😀")
        #expect(try JSONValue(parsing: #""ab\ncd\tef 中文""#) == "ab\ncd\tef 中文")
    }

    @Test func combinesSurrogatePairsAndReplacesLoneSurrogates() throws {
        #expect(try JSONValue(parsing: #""\ud83d\ude00""#) == "😀")
        #expect(try JSONValue(parsing: #""\uD83D\uDE00!""#) == "😀!")
        #expect(try JSONValue(parsing: #""\ud83d""#) == "\u{FFFD}")
        #expect(try JSONValue(parsing: #""\ude00x""#) == "\u{FFFD}x")
        #expect(try JSONValue(parsing: #""\ud83dx""#) == "\u{FFFD}x")
        #expect(try JSONValue(parsing: #""\ud83d\u0041""#) == "\u{FFFD}A")
        #expect(try JSONValue(parsing: #""\ud83d\ud83d\ude00""#) == "\u{FFFD}😀")
    }

    @Test(arguments: [
        ("0", 0.0), ("-0", -0.0), ("1", 1), ("-5", -5), ("0.1", 0.1), ("123.456", 123.456),
        ("1e21", 1e21), ("1E+21", 1e21), ("1e-7", 1e-7), ("-1.5e3", -1500), ("2.5E-3", 0.0025),
        ("9007199254740993", 9_007_199_254_740_992), ("9007199254740995", 9_007_199_254_740_996),
        ("123456789012345678901234567890", 1.2345678901234568e29),
        ("1.7976931348623157e308", .greatestFiniteMagnitude), ("5e-324", .leastNonzeroMagnitude),
        ("0.30000000000000004", 0.30000000000000004), ("1e400", .infinity), ("1e-400", 0),
        ("100000000000000000000000", 1e23), ("0.000001", 0.000001),
        ("58902591227.4140071122235941", 58_902_591_227.41401), ("32.05837885430250923", 32.05837885430251),
        ("0.727520772557915577", 0.7275207725579156), ("-212979.90981696621175874e-3", -212.9799098169662),
    ] as [(String, Double)])
    func parsesNumbersLikeJavaScript(text: String, expected: Double) throws {
        let value = try #require(try JSONValue(parsing: text).doubleValue)
        #expect(value == expected)
        #expect(value.sign == expected.sign)
    }

    @Test func keepsInsertionOrderAndLastDuplicate() throws {
        let value = try JSONValue(parsing: #"{"pid":"x","offset":"y","a":1,"token":"z","a":2}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["pid", "offset", "a", "token"])
        #expect(object["a"] == 2)
    }

    @Test func limitsNestingDepth() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONValue(parsing: ok) }
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: JSONError(.tooDeep, offset: 512)) { try JSONValue(parsing: tooDeep) }
        // Level 513 is the object opened by the 257th repetition, at byte 256 * 6.
        let hostile = String(repeating: #"{"a":["#, count: 100_000)
        #expect(throws: JSONError(.tooDeep, offset: 1536)) { try JSONValue(parsing: hostile) }
    }

    @Test(arguments: [
        (#"["some","data""#, JSONError.Kind.unexpectedEnd, 14),
        ("{", .unexpectedEnd, 1),
        ("", .unexpectedEnd, 0),
        ("   ", .unexpectedEnd, 3),
        ("[1,]", .unexpectedCharacter, 3),
        ("[1 2]", .unexpectedCharacter, 3),
        (#"{"a"}"#, .unexpectedCharacter, 4),
        (#"{"a":1,}"#, .unexpectedCharacter, 7),
        ("{a:1}", .unexpectedCharacter, 1),
        ("01", .invalidNumber, 1),
        ("-01", .invalidNumber, 2),
        ("-", .invalidNumber, 1),
        ("-x", .invalidNumber, 1),
        (".5", .unexpectedCharacter, 0),
        ("1.", .invalidNumber, 2),
        ("1.e5", .invalidNumber, 2),
        ("1e", .invalidNumber, 2),
        ("1e+", .invalidNumber, 3),
        ("+1", .unexpectedCharacter, 0),
        (#""\x""#, .invalidEscape, 1),
        (#""\u12g4""#, .invalidEscape, 1),
        (#""\u12"#, .unexpectedEnd, 5),
        (#""abc"#, .unexpectedEnd, 4),
        (#""a\"#, .unexpectedEnd, 3),
        ("\"a\nb\"", .unexpectedCharacter, 2),
        ("tru", .unexpectedEnd, 3),
        ("trux", .unexpectedCharacter, 3),
        ("nul", .unexpectedEnd, 3),
        ("NaN", .unexpectedCharacter, 0),
        ("[1] x", .trailingData, 4),
        ("{}}", .trailingData, 2),
        ("1 2", .trailingData, 2),
        ("\u{FEFF}1", .unexpectedCharacter, 0),
    ] as [(String, JSONError.Kind, Int)])
    func rejectsMalformedText(text: String, kind: JSONError.Kind, offset: Int) {
        #expect(throws: JSONError(kind, offset: offset)) { try JSONValue(parsing: text) }
    }

    @Test(arguments: [
        ([0x22, 0x80, 0x22], 1),  // lone continuation byte
        ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong "/"
        ([0x22, 0x61, 0xE0, 0x80, 0xAF, 0x22], 2),  // overlong 3-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1),
        ([0x22, 0xC3, 0x28, 0x22], 1),  // bad continuation
        ([0x22, 0x5C, 0x6E, 0xFF, 0x22], 3),  // after an escape
        ([0x5B, 0xC3, 0xA9, 0x5D], 1),  // valid UTF-8 but outside a string
    ] as [([UInt8], Int)])
    func rejectsInvalidUTF8(bytes: [UInt8], offset: Int) {
        let kind: JSONError.Kind = bytes[0] == 0x22 ? .invalidUTF8 : .unexpectedCharacter
        #expect(throws: JSONError(kind, offset: offset)) { try JSONValue(parsing: Data(bytes)) }
    }

    @Test func errorsDescribeThemselves() {
        #expect(JSONError(.trailingData, offset: 7).description == "JSON error: unexpected data after the value at byte 7")
    }

    @Test func neverCrashesOnTruncationsOfValidText() throws {
        let text = #"{"a":[1,-2.5e-3,"\ud83d\ude00é\n",true,false,null,{"b":{}}],"c":"x"}"#
        let bytes = Array(text.utf8)
        for length in 0..<bytes.count {
            let prefix = Data(bytes[..<length])
            #expect(throws: JSONError.self) { try JSONValue(parsing: prefix) }
        }
        #expect(try JSONValue(parsing: Data(bytes)).objectValue?.keys == ["a", "c"])
    }
}

/// Our parser against Foundation's `JSONSerialization` on generated documents.
@Suite struct JSONParserDifferentialTests {
    @Test func agreesWithJSONSerialization() throws {
        var generator = JSONTextGenerator(seed: 0x5EED_1234)
        for _ in 0..<200 {
            let text = generator.document()
            let ours = try JSONValue(parsing: text)
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            let theirs = try #require(JSONValue(foundation: object), "unconvertible: \(text)")
            #expect(ours == theirs, "\(text)")
        }
    }
}

extension JSONValue {
    /// Converts a `JSONSerialization` result, telling booleans from numbers by their ObjC type.
    init?(foundation object: Any) {
        switch object {
        case is NSNull:
            self = .null
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]:
            var elements: [JSONValue] = []
            for element in array {
                guard let value = JSONValue(foundation: element) else { return nil }
                elements.append(value)
            }
            self = .array(elements)
        case let dictionary as [String: Any]:
            var object = JSONObject()
            for (key, element) in dictionary {
                guard let value = JSONValue(foundation: element) else { return nil }
                object[key] = value
            }
            self = .object(object)
        default:
            return nil
        }
    }
}

/// Deterministic random JSON text (SplitMix64), with varied whitespace, escapes and numbers.
struct JSONTextGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    private mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }

    private mutating func space() -> String { pick(["", "", "", " ", "\n", "\t", " \r\n "]) }

    mutating func document() -> String { space() + value(depth: 0) + space() }

    private mutating func value(depth: Int) -> String {
        switch below(depth > 4 ? 6 : 8) {
        case 0: return pick(["true", "false", "null"])
        case 1, 2: return number()
        case 3, 4, 5: return string()
        case 6:
            let count = below(5)
            return "[" + space() + (0..<count).map { _ in value(depth: depth + 1) }
                .joined(separator: space() + "," + space()) + space() + "]"
        default:
            let count = below(5)
            let members = (0..<count).map { index in
                "\"k\(index)\(string().dropFirst())" + space() + ":" + space() + value(depth: depth + 1)
            }
            return "{" + space() + members.joined(separator: "," + space()) + space() + "}"
        }
    }

    private mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(below(10))) })
    }

    /// Integers up to 18 digits, or decimals of at most 15 significant digits: Foundation on
    /// Linux does not round longer decimals correctly (the parser's number table covers those).
    private mutating func number() -> String {
        var text = below(3) == 0 ? "-" : ""
        if below(3) == 0 { return text + String(1 + below(9)) + digits(below(18)) }
        let integerDigits = below(8)
        text += integerDigits == 0 ? "0" : String(1 + below(9)) + digits(integerDigits - 1)
        if below(2) == 0 { text += "." + digits(1 + below(15 - max(integerDigits, 1))) }
        if below(3) == 0 { text += pick(["e", "E"]) + pick(["", "+", "-"]) + String(below(23)) }
        return text
    }

    private mutating func string() -> String {
        let pieces = [
            "a", "Z", "7", " ", "/", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
            "\\u0041", "\\u00e9", "\\u4E2D", "\\ud83d\\ude00", "\\u0000", "é", "中", "😀", "\u{7F}",
        ]
        return "\"" + (0..<below(12)).map { _ in pick(pieces) }.joined() + "\""
    }
}
