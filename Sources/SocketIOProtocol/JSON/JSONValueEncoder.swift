import Foundation

/// Turns any `Encodable` into a ``JSONValue`` directly, without producing and re-parsing bytes.
///
/// This is how typed payloads become Socket.IO event arguments. It follows Foundation's
/// `JSONEncoder` (keys in the order the type encodes them; a type that encodes nothing is `{}`)
/// with the differences Socket.IO needs:
/// - `Data` becomes ``JSONValue/binary(_:)``, so it travels as a binary attachment.
/// - `Date` becomes its `timeIntervalSince1970` in seconds, as a number.
/// - `URL` becomes its `absoluteString`.
/// - Integers must be exactly representable as `Double` (JavaScript's only number type);
///   anything beyond ±2^53 that would silently change is an `EncodingError.invalidValue`.
/// - Non-finite floating-point values are kept; written out they become `null`, like
///   `JSON.stringify`.
public struct JSONValueEncoder: Sendable {
    /// Context handed to `encode(to:)` implementations as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// An encoder with empty `userInfo`.
    public init() {}

    /// Encodes `value` into a ``JSONValue``, throwing the type's own errors or an
    /// `EncodingError` for values JSON cannot carry (and for a type that encodes nothing at all).
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let encoder = JSONValueEncoderImpl(codingPath: [], userInfo: userInfo)
        let node = try encoder.box(value, codingPath: [])
        if case .nested(let nested) = node, nested.storage == nil {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return node.resolved
    }
}

/// A value being built. Containers are reference types so that nested containers handed out
/// earlier keep writing into the right place.
enum EncodedNode {
    case value(JSONValue)
    case object(EncodedObject)
    case array(EncodedArray)
    /// A sub-encoder's result (for `superEncoder` and nested `Encodable` values), read at the end.
    case nested(JSONValueEncoderImpl)

    var resolved: JSONValue {
        switch self {
        case .value(let value): value
        case .object(let object): .object(JSONObject(zip(object.keys, object.values.lazy.map(\.resolved))))
        case .array(let array): .array(array.values.map(\.resolved))
        case .nested(let encoder): encoder.storage?.resolved ?? .object(JSONObject())
        }
    }

    /// The object `node` holds, or a new one put there: asking twice for a keyed container at
    /// the same place (the encoder, or a key) must hand out the same object.
    static func object(in node: inout EncodedNode?) -> EncodedObject {
        if case .object(let existing) = node { return existing }
        let object = EncodedObject()
        node = .object(object)
        return object
    }

    /// The array `node` holds, or a new one put there, like ``object(in:)``.
    static func array(in node: inout EncodedNode?) -> EncodedArray {
        if case .array(let existing) = node { return existing }
        let array = EncodedArray()
        node = .array(array)
        return array
    }
}

/// Object members in the order they were first encoded; re-encoding a key replaces its value.
final class EncodedObject {
    private(set) var keys: [String] = []
    private(set) var values: [EncodedNode] = []
    /// Built once the object is large enough that linear key search would hurt (dictionaries).
    private var positions: [String: Int]?

    subscript(key: String) -> EncodedNode? {
        get { position(of: key).map { values[$0] } }
        set {
            guard let newValue else { return }
            if let position = position(of: key) {
                values[position] = newValue
            } else {
                keys.append(key)
                values.append(newValue)
                positions?[key] = keys.count - 1
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        if keys.count < 16 { return keys.firstIndex(of: key) }
        var built: [String: Int] = [:]
        built.reserveCapacity(keys.count * 2)
        for (position, existing) in keys.enumerated() { built[existing] = position }
        positions = built
        return built[key]
    }
}

/// Array elements in encoding order.
final class EncodedArray {
    var values: [EncodedNode] = []
}

/// The `Encoder` handed to `encode(to:)`; holds whatever its containers produced.
final class JSONValueEncoderImpl: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]
    var storage: EncodedNode?

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object = EncodedNode.object(in: &storage)
        return KeyedEncodingContainer(JSONKeyedEncodingContainer(encoder: self, object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array = EncodedNode.array(in: &storage)
        return JSONUnkeyedEncodingContainer(encoder: self, array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueEncodingContainer(encoder: self)
    }

    // MARK: Boxing

    /// Converts a value at `codingPath`, special-casing the types JSONValue represents natively.
    func box<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> EncodedNode {
        if T.self == JSONValue.self {
            return .value(value as! JSONValue)
        } else if T.self == Data.self {
            return .value(.binary(value as! Data))
        } else if T.self == Date.self {
            return .value(.number((value as! Date).timeIntervalSince1970))
        } else if T.self == URL.self {
            return .value(.string((value as! URL).absoluteString))
        } else if T.self == Decimal.self {
            return .value(.number(NSDecimalNumber(decimal: value as! Decimal).doubleValue))
        }
        let encoder = JSONValueEncoderImpl(codingPath: codingPath, userInfo: userInfo)
        try value.encode(to: encoder)
        return encoder.storage ?? .nested(encoder)  // encoded nothing: resolves to {}
    }

    func boxInteger<I: BinaryInteger>(_ value: I, codingPath: [any CodingKey]) throws -> JSONValue {
        guard let double = Double(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "\(value) is not exactly representable as a JSON number (a Double)."))
        }
        return .number(double)
    }

    /// A `Float` by its shortest decimal form, so `0.1` stays `0.1` rather than `0.100000001…`.
    func boxFloat(_ value: Float) -> JSONValue {
        guard value.isFinite, let double = Double(value.description) else { return .number(Double(value)) }
        return .number(double)
    }
}
