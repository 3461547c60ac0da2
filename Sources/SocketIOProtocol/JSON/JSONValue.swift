public import Foundation

/// A JSON value as Socket.IO carries it, with binary data as a first-class case.
///
/// Socket.IO payloads are JSON in which any value may be binary: the encoder replaces each
/// ``binary(_:)`` with a placeholder and sends the bytes as an attachment; the decoder puts them
/// back. Numbers follow JavaScript: one ``number(_:)`` case holding a `Double`, so `1` and `1.0`
/// are the same value, and integers are exact up to 2^53. Objects keep their keys in insertion
/// order (``JSONObject``), so what we encode is byte-for-byte what socket.io's encoder writes.
///
/// ```swift
/// let payload: JSONValue = ["user": "ada", "avatar": .binary(pngData), "tags": [1, 2]]
/// payload["user"]?.stringValue  // "ada"
/// ```
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON has one kind: integers are exact up to 2^53).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, its members in order.
    case object(JSONObject)
    /// Raw bytes: a Socket.IO binary attachment once decoded.
    case binary(Data)
}

extension JSONValue {
    /// The string, if this is a ``string(_:)``.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is a ``number(_:)``.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, if this is a ``number(_:)`` holding an integral value in range.
    public var intValue: Int? {
        guard case .number(let value) = self, let int = Int(exactly: value) else { return nil }
        return int
    }

    /// The flag, if this is a ``bool(_:)``.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an ``array(_:)``.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, if this is an ``object(_:)``.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is a ``binary(_:)``.
    public var binaryValue: Data? {
        if case .binary(let value) = self { return value }
        return nil
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Member lookup on objects; `nil` for other values and missing keys.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// Element lookup on arrays; `nil` for other values and out-of-range indices.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// Whether this value contains ``binary(_:)`` anywhere inside it.
    public var containsBinary: Bool {
        switch self {
        case .binary:
            return true
        case .array(let elements):
            return elements.contains { $0.containsBinary }
        case .object(let object):
            return object.contains { $0.value.containsBinary }
        case .null, .bool, .number, .string:
            return false
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// The value of a nil literal.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// The value of a boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// The value of a integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// The value of a float literal.
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// The value of a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// The value of a array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// The value of a dictionary literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
