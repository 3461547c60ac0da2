import Foundation
import Testing
import SocketIOProtocol

private struct Profile: Codable, Equatable {
    enum Role: String, Codable { case admin, guest }
    struct Address: Codable, Equatable {
        var city: String
        var zip: Int?
    }

    var name: String
    var age: Int
    var score: Double
    var ratio: Float
    var active: Bool
    var nickname: String?
    var address: Address
    var tags: [String]
    var avatar: Data
    var joined: Date
    var role: Role
    var home: URL
}

private class Base: Codable {
    var a = 1
}

private final class Derived: Base {
    var b = 2
    private enum CodingKeys: String, CodingKey { case b }

    override init() { super.init() }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        b = try container.decode(Int.self, forKey: .b)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(b, forKey: .b)
        try super.encode(to: container.superEncoder())
    }
}

private struct Nothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

private struct Pair: Codable, Equatable {
    var first: Int
    var second: UInt8
}

@Suite struct JSONCodableTests {
    private let profile = Profile(
        name: "Ada", age: 36, score: 99.5, ratio: 0.1, active: true, nickname: nil,
        address: .init(city: "London", zip: nil), tags: ["math", "engines"], avatar: Data([1, 2, 3]),
        joined: Date(timeIntervalSince1970: 1_700_000_000.25), role: .admin, home: URL(string: "https://example.com/a?b=c")!)

    @Test func roundTripsAStruct() throws {
        let value = try JSONValueEncoder().encode(profile)
        #expect(try JSONValueDecoder().decode(Profile.self, from: value) == profile)
        var withNickname = profile
        withNickname.nickname = "Countess"
        withNickname.address.zip = 12345
        let second = try JSONValueEncoder().encode(withNickname)
        #expect(try JSONValueDecoder().decode(Profile.self, from: second) == withNickname)
    }

    @Test func encodesNativelyInDeclaredOrder() throws {
        let value = try JSONValueEncoder().encode(profile)
        #expect(value.objectValue?.keys == ["name", "age", "score", "ratio", "active", "address", "tags", "avatar", "joined", "role", "home"])
        #expect(value["avatar"] == .binary(Data([1, 2, 3])))
        #expect(value["joined"] == .number(1_700_000_000.25))
        #expect(value["ratio"] == .number(0.1))
        #expect(value["home"] == "https://example.com/a?b=c")
        #expect(value["address"] == ["city": "London"])
        var attachments: [Data] = []
        let json = value.jsonString(extractingAttachmentsInto: &attachments)
        #expect(json.contains(#""avatar":{"_placeholder":true,"num":0},"joined":1700000000.25,"role":"admin""#))
        #expect(attachments == [Data([1, 2, 3])])
    }

    @Test func decodesDataFromBinaryOrBase64() throws {
        let decoder = JSONValueDecoder()
        #expect(try decoder.decode(Data.self, from: .binary(Data([7]))) == Data([7]))
        #expect(try decoder.decode(Data.self, from: "AQID") == Data([1, 2, 3]))
        #expect(try decoder.decode(Data.self, from: ["base64": "AQID"]) == Data([1, 2, 3]))
        #expect(throws: DecodingError.self) { try decoder.decode(Data.self, from: "not base64!") }
        #expect(try decoder.decode([Data].self, from: [.binary(Data([1])), "Ag=="]) == [Data([1]), Data([2])])
    }

    @Test func rejectsInexactIntegers() throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONValueDecoder().decode(Pair.self, from: ["first": 1.5, "second": 1])
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["first"])
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Pair.self, from: ["first": 1, "second": 300]) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Int.self, from: 1e30) }
        #expect(try JSONValueDecoder().decode(Pair.self, from: ["first": -3, "second": 255.0]) == Pair(first: -3, second: 255))
    }

    @Test func reportsTypeMismatchMissingKeyAndNullWithPaths() throws {
        let decoder = JSONValueDecoder()
        let mismatch = try #require(throws: DecodingError.self) {
            try decoder.decode([Pair].self, from: [["first": 1, "second": 2], ["first": "1", "second": 2]])
        }
        guard case .typeMismatch(_, let context) = mismatch else { Issue.record("\(mismatch)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["Index 1", "first"])
        #expect(context.codingPath.first?.intValue == 1)

        let missing = try #require(throws: DecodingError.self) { try decoder.decode(Pair.self, from: ["first": 1]) }
        guard case .keyNotFound(let key, _) = missing else { Issue.record("\(missing)"); return }
        #expect(key.stringValue == "second")

        let null = try #require(throws: DecodingError.self) { try decoder.decode(Pair.self, from: ["first": nil, "second": 1]) }
        guard case .valueNotFound = null else { Issue.record("\(null)"); return }
    }

    @Test func handlesOptionalsCollectionsAndDictionaries() throws {
        let encoder = JSONValueEncoder()
        let decoder = JSONValueDecoder()
        let optionals: [Int?] = [1, nil, 3]
        #expect(try encoder.encode(optionals) == [1, nil, 3])
        #expect(try decoder.decode([Int?].self, from: [1, nil, 3]) == optionals)
        let dictionary = Dictionary(uniqueKeysWithValues: (0..<40).map { ("key\($0)", $0) })
        let encoded = try encoder.encode(dictionary)
        #expect(encoded.objectValue?.count == 40)
        #expect(try decoder.decode([String: Int].self, from: encoded) == dictionary)
        #expect(try decoder.decode(String?.self, from: nil) == nil)
        #expect(try encoder.encode(Int?.none) == nil)
    }

    @Test func supportsSuperEncoderAndSuperDecoder() throws {
        let value = try JSONValueEncoder().encode(Derived())
        #expect(value.jsonString == #"{"b":2,"super":{"a":1}}"#)
        let decoded = try JSONValueDecoder().decode(Derived.self, from: ["b": 5, "super": ["a": 6]])
        #expect(decoded.b == 5 && decoded.a == 6)
    }

    @Test func rejectsValuesJSONCannotCarry() throws {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Int64.max) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Nothing()) }
        #expect(try JSONValueEncoder().encode([Nothing()]) == [.object([:])])
        #expect(try JSONValueEncoder().encode(Int64(1) << 53) == .number(9_007_199_254_740_992))
    }

    @Test func passesJSONValueThroughUnchanged() throws {
        let value: JSONValue = ["z": 1, "a": [.binary(Data([9])), nil, "s"], "m": ["k": false]]
        let encoded = try JSONValueEncoder().encode(value)
        #expect(encoded == value)
        #expect(encoded.objectValue?.keys == ["z", "a", "m"])
        #expect(try JSONValueDecoder().decode(JSONValue.self, from: value) == value)
        let wrapped = try JSONValueEncoder().encode(["payload": value])
        #expect(wrapped["payload"] == value)
        #expect(try JSONValueDecoder().decode([String: JSONValue].self, from: wrapped) == ["payload": value])
    }

    @Test func worksWithFoundationJSONCoders() throws {
        let value: JSONValue = ["bin": .binary(Data([1, 2])), "n": 1.5, "list": [true, nil, "x"]]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(decoded == ["bin": ["base64": "AQI="], "n": 1.5, "list": [true, nil, "x"]])
        let text = #"{"a":[1,2.5,"s",{"b":null}],"c":false}"#
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) == JSONValue(parsing: text))
    }
}
