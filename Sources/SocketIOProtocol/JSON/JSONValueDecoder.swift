import Foundation

/// Reads any `Decodable` straight out of a ``JSONValue``, without serializing it first.
///
/// This is how event arguments reach typed handlers. It mirrors ``JSONValueEncoder``:
/// - `Data` decodes from ``JSONValue/binary(_:)`` (a received attachment), from a base64
///   string, or from a `{"base64":"…"}` object.
/// - `Date` decodes from a number of seconds since 1970 (`timeIntervalSince1970`).
/// - `URL` decodes from a string.
/// - Integers decode only from numbers exactly representable in the target type, so `1.5` or
///   `300` as `UInt8` is a `DecodingError.dataCorrupted`, never a silent truncation.
/// - Errors are the standard `DecodingError`s with the full `codingPath`.
public struct JSONValueDecoder: Sendable {
    /// Context handed to `init(from:)` implementations as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with empty `userInfo`.
    public init() {}

    /// Decodes a `T` from `value`, throwing a `DecodingError` that names the failing path.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoderImpl(value: value, codingPath: [], userInfo: userInfo).unbox(value, as: type, codingPath: [])
    }
}

/// The `Decoder` handed to `init(from:)`: one value and where it sits.
final class JSONValueDecoderImpl: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    init(value: JSONValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.value = value
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw mismatch([String: JSONValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(decoder: self, object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([JSONValue].self, value, codingPath)
        }
        return JSONUnkeyedDecodingContainer(decoder: self, elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        JSONSingleValueDecodingContainer(decoder: self)
    }

    // MARK: Unboxing

    /// `valueNotFound` for `null` where a value was required, `typeMismatch` otherwise, worded
    /// like Foundation's so messages look familiar.
    func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        if value.isNull {
            return .valueNotFound(
                type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(
            type,
            DecodingError.Context(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    func corrupted(_ message: String, _ codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: message))
    }

    func unboxBool(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(Bool.self, value, codingPath) }
        return bool
    }

    func unboxString(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, codingPath) }
        return string
    }

    func unboxDouble(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, codingPath) }
        return number
    }

    func unboxFloat(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Float {
        guard case .number(let number) = value else { throw mismatch(Float.self, value, codingPath) }
        guard !number.isFinite || number.magnitude <= Double(Float.greatestFiniteMagnitude) else {
            throw corrupted("Number \(JSONValue.number(number)) does not fit in Float.", codingPath)
        }
        return Float(number)
    }

    func unboxInteger<I: FixedWidthInteger>(_ value: JSONValue, as type: I.Type, _ codingPath: [any CodingKey]) throws -> I {
        guard case .number(let number) = value else { throw mismatch(type, value, codingPath) }
        guard let integer = I(exactly: number) else {
            throw corrupted("Number \(JSONValue.number(number)) is not representable as \(type).", codingPath)
        }
        return integer
    }

    func unboxData(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Data {
        var base64: String?
        switch value {
        case .binary(let data): return data
        case .string(let string): base64 = string
        case .object(let object) where object.count == 1: base64 = object["base64"]?.stringValue
        default: break
        }
        guard let base64 else { throw mismatch(Data.self, value, codingPath) }
        guard let data = Data(base64Encoded: base64) else {
            throw corrupted("String is not valid base64 data.", codingPath)
        }
        return data
    }

    /// Decodes a `T` from `value` at `codingPath`, handling the natively represented types here
    /// and handing everything else a fresh decoder.
    func unbox<T: Decodable>(_ value: JSONValue, as type: T.Type, codingPath: [any CodingKey]) throws -> T {
        if type == JSONValue.self {
            return value as! T
        } else if type == Data.self {
            return try unboxData(value, codingPath) as! T
        } else if type == Date.self {
            guard case .number(let seconds) = value else { throw mismatch(Date.self, value, codingPath) }
            return Date(timeIntervalSince1970: seconds) as! T
        } else if type == URL.self {
            let string = try unboxString(value, codingPath)
            guard let url = URL(string: string) else { throw corrupted("Invalid URL string.", codingPath) }
            return url as! T
        } else if type == Decimal.self {
            guard case .number(let number) = value else { throw mismatch(Decimal.self, value, codingPath) }
            guard let decimal = Decimal(string: JSONValue.number(number).jsonString, locale: Locale(identifier: "en_US_POSIX")) else {
                throw corrupted("Number \(JSONValue.number(number)) is not representable as Decimal.", codingPath)
            }
            return decimal as! T
        }
        return try T(from: JSONValueDecoderImpl(value: value, codingPath: codingPath, userInfo: userInfo))
    }
}
