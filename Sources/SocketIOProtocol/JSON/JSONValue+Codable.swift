import Foundation

/// `JSONValue` is `Codable` so it can sit inside any Codable type.
///
/// Through ``JSONValueEncoder`` and ``JSONValueDecoder`` it passes through untouched, binary and
/// key order included. Through other coders (Foundation's `JSONEncoder`, say) it maps onto the
/// coder's own JSON model: binary becomes `{"base64":"…"}` (and decodes back as that object,
/// since it cannot be told apart from one), and key order is whatever the coder keeps.
extension JSONValue: Codable {
    /// Reads whatever JSON value the decoder holds: the value itself from ``JSONValueDecoder``,
    /// otherwise by probing null, bool, number, string, object and array in turn.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? JSONValueDecoderImpl {
            self = decoder.value
            return
        }
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() {
                self = .null
                return
            }
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? container.decode(Double.self) {
                self = .number(value)
                return
            }
            if let value = try? container.decode(String.self) {
                self = .string(value)
                return
            }
        }
        if let container = try? decoder.container(keyedBy: JSONCodingKey.self) {
            var object = JSONObject()
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            if let count = container.count { elements.reserveCapacity(count) }
            while !container.isAtEnd {
                elements.append(try container.decode(JSONValue.self))
            }
            self = .array(elements)
            return
        }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "Not a JSON value."))
    }

    /// Writes this value as itself into ``JSONValueEncoder``, otherwise as the coder's
    /// primitives and containers (binary as `{"base64":"…"}`).
    public func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? JSONValueEncoderImpl {
            encoder.storage = .value(self)
            return
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for member in object.members {
                try container.encode(member.value, forKey: JSONCodingKey(member.key))
            }
        case .binary(let data):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            try container.encode(data.base64EncodedString(), forKey: JSONCodingKey("base64"))
        }
    }
}

/// A coding key for any string or array index: object members of `JSONValue`, array positions
/// in coding paths, and `super`.
struct JSONCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) { self.init(index: intValue) }

    static let `super` = JSONCodingKey("super")
}

extension JSONValue {
    /// A short name of this value's kind for error messages ("a string", "null").
    package var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        case .binary: "binary data"
        }
    }
}
