/// Writes members into an ``EncodedObject`` in the order they are encoded.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONValueEncoderImpl
    let object: EncodedObject
    let codingPath: [any CodingKey]

    private func set(_ value: JSONValue, for key: Key) { object[key.stringValue] = .value(value) }

    private func path(_ key: some CodingKey) -> [any CodingKey] { codingPath + [key] }

    mutating func encodeNil(forKey key: Key) throws { set(.null, for: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), for: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), for: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.number(value), for: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(encoder.boxFloat(value), for: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encodeInteger(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try encodeInteger(value, key) }

    private func encodeInteger(_ value: some BinaryInteger, _ key: Key) throws {
        set(try encoder.boxInteger(value, codingPath: path(key)), for: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object[key.stringValue] = try encoder.box(value, codingPath: path(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedNode.object(in: &object[key.stringValue])
        return KeyedEncodingContainer(
            JSONKeyedEncodingContainer<NestedKey>(encoder: encoder, object: nested, codingPath: path(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = EncodedNode.array(in: &object[key.stringValue])
        return JSONUnkeyedEncodingContainer(encoder: encoder, array: nested, codingPath: path(key))
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: JSONCodingKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: some CodingKey) -> any Encoder {
        let sub = JSONValueEncoderImpl(codingPath: path(key), userInfo: encoder.userInfo)
        object[key.stringValue] = .nested(sub)
        return sub
    }
}

/// Appends elements to an ``EncodedArray``.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer, JSONPrimitiveEncoding {
    let encoder: JSONValueEncoderImpl
    let array: EncodedArray
    let codingPath: [any CodingKey]

    var count: Int { array.values.count }

    func put(_ value: JSONValue) { array.values.append(.value(value)) }

    var primitivePath: [any CodingKey] { nextPath }

    private var nextPath: [any CodingKey] { codingPath + [JSONCodingKey(index: count)] }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.values.append(try encoder.box(value, codingPath: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = EncodedObject()
        let path = nextPath
        array.values.append(.object(nested))
        return KeyedEncodingContainer(
            JSONKeyedEncodingContainer<NestedKey>(encoder: encoder, object: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let path = nextPath
        array.values.append(.array(nested))
        return JSONUnkeyedEncodingContainer(encoder: encoder, array: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let sub = JSONValueEncoderImpl(codingPath: nextPath, userInfo: encoder.userInfo)
        array.values.append(.nested(sub))
        return sub
    }
}

/// Stores one value as the encoder's whole result.
struct JSONSingleValueEncodingContainer: SingleValueEncodingContainer, JSONPrimitiveEncoding {
    let encoder: JSONValueEncoderImpl

    var codingPath: [any CodingKey] { encoder.codingPath }

    func put(_ value: JSONValue) { encoder.storage = .value(value) }

    var primitivePath: [any CodingKey] { codingPath }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.storage = try encoder.box(value, codingPath: codingPath)
    }
}

/// What the unkeyed and the single-value containers share: every primitive becomes a
/// ``JSONValue`` handed to ``put(_:)`` (appended, or stored as the whole result).
protocol JSONPrimitiveEncoding {
    var encoder: JSONValueEncoderImpl { get }
    /// The coding path of the value being encoded (for integer range errors).
    var primitivePath: [any CodingKey] { get }
    func put(_ value: JSONValue)
}

extension JSONPrimitiveEncoding {
    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(.number(value)) }
    mutating func encode(_ value: Float) throws { put(encoder.boxFloat(value)) }
    mutating func encode(_ value: Int) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int8) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int16) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int32) throws { try encodeInteger(value) }
    mutating func encode(_ value: Int64) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try encodeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try encodeInteger(value) }

    private func encodeInteger(_ value: some BinaryInteger) throws {
        put(try encoder.boxInteger(value, codingPath: primitivePath))
    }
}
