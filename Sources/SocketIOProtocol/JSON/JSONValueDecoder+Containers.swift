/// Reads members of a ``JSONObject`` by key.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONValueDecoderImpl
    let object: JSONObject
    let codingPath: [any CodingKey]
    /// For large objects (decoded dictionaries), a hash index instead of linear lookups.
    private let index: [String: JSONValue]?

    init(decoder: JSONValueDecoderImpl, object: JSONObject, codingPath: [any CodingKey]) {
        self.decoder = decoder
        self.object = object
        self.codingPath = codingPath
        index = object.count > 16
            ? Dictionary(object.members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            : nil
    }

    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { lookup(key) != nil }

    private func lookup(_ key: Key) -> JSONValue? {
        if let index { return index[key.stringValue] }
        return object[key.stringValue]
    }

    private func value(for key: Key) throws -> JSONValue {
        guard let value = lookup(key) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    private func path(_ key: some CodingKey) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try value(for: key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.unboxBool(value(for: key), path(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.unboxString(value(for: key), path(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.unboxDouble(value(for: key), path(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.unboxFloat(value(for: key), path(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try decoder.unboxInteger(value(for: key), as: type, path(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(value(for: key), as: type, codingPath: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try value(for: key)
        guard case .object(let nested) = value else { throw decoder.mismatch([String: JSONValue].self, value, path(key)) }
        return KeyedDecodingContainer(JSONKeyedDecodingContainer<NestedKey>(decoder: decoder, object: nested, codingPath: path(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try value(for: key)
        guard case .array(let elements) = value else { throw decoder.mismatch([JSONValue].self, value, path(key)) }
        return JSONUnkeyedDecodingContainer(decoder: decoder, elements: elements, codingPath: path(key))
    }

    /// Like Foundation, a missing `super` member decodes as `null` rather than failing here.
    func superDecoder() throws -> any Decoder {
        JSONValueDecoderImpl(
            value: object[JSONCodingKey.super.stringValue] ?? .null, codingPath: path(JSONCodingKey.super),
            userInfo: decoder.userInfo)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoderImpl(value: lookup(key) ?? .null, codingPath: path(key), userInfo: decoder.userInfo)
    }
}

/// Reads array elements in order; a failed decode does not advance, as the protocol requires.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: JSONValueDecoderImpl
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(decoder: JSONValueDecoderImpl, elements: [JSONValue], codingPath: [any CodingKey]) {
        self.decoder = decoder
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [JSONCodingKey(index: currentIndex)] }

    private func next(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, DecodingError.Context(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex]
    }

    /// Decodes the current element with `body` and advances only if that succeeded.
    private mutating func advance<T>(_ type: T.Type, _ body: (JSONValue, [any CodingKey]) throws -> T) throws -> T {
        let result = try body(next(type), currentPath)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(JSONValue.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try advance(type, decoder.unboxBool) }
    mutating func decode(_ type: String.Type) throws -> String { try advance(type, decoder.unboxString) }
    mutating func decode(_ type: Double.Type) throws -> Double { try advance(type, decoder.unboxDouble) }
    mutating func decode(_ type: Float.Type) throws -> Float { try advance(type, decoder.unboxFloat) }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private mutating func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let decoder = decoder
        return try advance(type) { value, path in try decoder.unboxInteger(value, as: type, path) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = decoder
        return try advance(type) { value, path in try decoder.unbox(value, as: type, codingPath: path) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let decoder = decoder
        return try advance(KeyedDecodingContainer<NestedKey>.self) { value, path in
            guard case .object(let nested) = value else { throw decoder.mismatch([String: JSONValue].self, value, path) }
            return KeyedDecodingContainer(JSONKeyedDecodingContainer<NestedKey>(decoder: decoder, object: nested, codingPath: path))
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let decoder = decoder
        return try advance((any UnkeyedDecodingContainer).self) { value, path in
            guard case .array(let nested) = value else { throw decoder.mismatch([JSONValue].self, value, path) }
            return JSONUnkeyedDecodingContainer(decoder: decoder, elements: nested, codingPath: path)
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = decoder
        return try advance((any Decoder).self) { value, path in
            JSONValueDecoderImpl(value: value, codingPath: path, userInfo: decoder.userInfo)
        }
    }
}

/// Reads the decoder's value as a single primitive or `Decodable`.
struct JSONSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: JSONValueDecoderImpl

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var value: JSONValue { decoder.value }

    func decodeNil() -> Bool { value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.unboxBool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try decoder.unboxString(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.unboxDouble(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.unboxFloat(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.unboxInteger(value, as: type, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.unboxInteger(value, as: type, codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.unbox(value, as: type, codingPath: codingPath)
    }
}
