public import Foundation

/// A MessagePack value (https://github.com/msgpack/msgpack/blob/master/spec.md): what socket.io's
/// cluster adapters store for messages too large for a notification or carrying binary
/// (`@msgpack/msgpack`'s default encoding). Maps keep their order and may have any keys.
public enum MessagePackValue: Sendable, Hashable {
    /// nil.
    case `nil`
    /// true or false.
    case bool(Bool)
    /// Any integer format that fits `Int64` (negative fixint, int 8…64, and unsigned ones up to
    /// `Int64.max`).
    case int(Int64)
    /// An unsigned 64-bit integer past `Int64.max`.
    case uint(UInt64)
    /// float 32 or float 64.
    case float(Double)
    /// A UTF-8 string (fixstr, str 8…32).
    case string(String)
    /// Bytes (bin 8…32).
    case binary(Data)
    /// An array.
    case array([MessagePackValue])
    /// A map, its entries in order.
    case map([MessagePackPair])
    /// An extension type (`-1` is the timestamp).
    case ext(type: Int8, data: Data)
}

/// One entry of a MessagePack map.
public struct MessagePackPair: Sendable, Hashable {
    /// The entry's key.
    public var key: MessagePackValue
    /// The entry's value.
    public var value: MessagePackValue

    /// The entry `key`: `value`.
    public init(_ key: MessagePackValue, _ value: MessagePackValue) {
        self.key = key
        self.value = value
    }
}

/// What is wrong with MessagePack bytes.
public enum MessagePackError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes end inside a value (at `offset`).
    case truncated(offset: Int)
    /// `0xc1`, which the format never uses, at `offset`.
    case invalidByte(UInt8, offset: Int)
    /// A string that is not UTF-8, at `offset`.
    case invalidString(offset: Int)
    /// Nesting deeper than the decoder allows (arrays and maps within each other).
    case tooDeep(limit: Int)
    /// Bytes left after the value.
    case trailingBytes(count: Int)
    /// A value JSON has no form for (a map key that is not a string, an unknown extension).
    case notJSON(String)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .truncated(let offset): "MessagePack data ends inside a value (at byte \(offset))"
        case .invalidByte(let byte, let offset): "byte 0x\(String(byte, radix: 16)) is not MessagePack (at byte \(offset))"
        case .invalidString(let offset): "a MessagePack string is not UTF-8 (at byte \(offset))"
        case .tooDeep(let limit): "MessagePack nested deeper than \(limit)"
        case .trailingBytes(let count): "\(count) bytes after the MessagePack value"
        case .notJSON(let what): "MessagePack \(what) has no JSON form"
        }
    }
}

extension MessagePackValue {
    /// The smallest encoding of the value, as `@msgpack/msgpack` writes it: the shortest
    /// integer format, strings as fixstr/str 8/16/32, binary as bin 8/16/32, floats as float 64.
    public var encoded: Data {
        var writer = MessagePackWriter()
        writer.write(self)
        return Data(writer.bytes)
    }

    /// Decodes exactly one value from `data` (bytes after it are an error).
    public init(decoding data: some Collection<UInt8>, maxDepth: Int = 64) throws(MessagePackError) {
        var reader = MessagePackReader(bytes: Array(data), maxDepth: maxDepth)
        self = try reader.read(depth: 0)
        if reader.offset < reader.bytes.count { throw .trailingBytes(count: reader.bytes.count - reader.offset) }
    }
}

struct MessagePackWriter {
    var bytes: [UInt8] = []

    mutating func write(_ value: MessagePackValue) {
        switch value {
        case .nil: bytes.append(0xc0)
        case .bool(let flag): bytes.append(flag ? 0xc3 : 0xc2)
        case .int(let number): writeInt(number)
        case .uint(let number): writeUInt(number)
        case .float(let number):
            bytes.append(0xcb)
            append(number.bitPattern)
        case .string(let text):
            let utf8 = Array(text.utf8)
            writeHeader(count: utf8.count, fix: 0xa0, fixLimit: 31, eight: 0xd9, sixteen: 0xda, thirtyTwo: 0xdb)
            bytes += utf8
        case .binary(let data):
            writeHeader(count: data.count, fix: nil, fixLimit: -1, eight: 0xc4, sixteen: 0xc5, thirtyTwo: 0xc6)
            bytes += data
        case .array(let items):
            writeHeader(count: items.count, fix: 0x90, fixLimit: 15, eight: nil, sixteen: 0xdc, thirtyTwo: 0xdd)
            for item in items { write(item) }
        case .map(let pairs):
            writeHeader(count: pairs.count, fix: 0x80, fixLimit: 15, eight: nil, sixteen: 0xde, thirtyTwo: 0xdf)
            for pair in pairs {
                write(pair.key)
                write(pair.value)
            }
        case .ext(let type, let data):
            switch data.count {
            case 1: bytes.append(0xd4)
            case 2: bytes.append(0xd5)
            case 4: bytes.append(0xd6)
            case 8: bytes.append(0xd7)
            case 16: bytes.append(0xd8)
            case ..<0x100: bytes += [0xc7, UInt8(data.count)]
            case ..<0x10000:
                bytes.append(0xc8)
                append(UInt16(data.count))
            default:
                bytes.append(0xc9)
                append(UInt32(data.count))
            }
            bytes.append(UInt8(bitPattern: type))
            bytes += data
        }
    }

    private mutating func writeInt(_ number: Int64) {
        if number >= 0 { return writeUInt(UInt64(number)) }
        switch number {
        case -32 ..< 0: bytes.append(UInt8(bitPattern: Int8(number)))
        case Int64(Int8.min) ..< -32: bytes += [0xd0, UInt8(bitPattern: Int8(number))]
        case Int64(Int16.min) ..< Int64(Int8.min):
            bytes.append(0xd1)
            append(UInt16(bitPattern: Int16(number)))
        case Int64(Int32.min) ..< Int64(Int16.min):
            bytes.append(0xd2)
            append(UInt32(bitPattern: Int32(number)))
        default:
            bytes.append(0xd3)
            append(UInt64(bitPattern: number))
        }
    }

    private mutating func writeUInt(_ number: UInt64) {
        switch number {
        case 0 ..< 0x80: bytes.append(UInt8(number))
        case 0x80 ..< 0x100: bytes += [0xcc, UInt8(number)]
        case 0x100 ..< 0x10000:
            bytes.append(0xcd)
            append(UInt16(number))
        case 0x10000 ..< 0x1_0000_0000:
            bytes.append(0xce)
            append(UInt32(number))
        default:
            bytes.append(0xcf)
            append(number)
        }
    }

    private mutating func writeHeader(count: Int, fix: UInt8?, fixLimit: Int, eight: UInt8?, sixteen: UInt8, thirtyTwo: UInt8) {
        if let fix, count <= fixLimit {
            bytes.append(fix | UInt8(count))
        } else if let eight, count < 0x100 {
            bytes += [eight, UInt8(count)]
        } else if count < 0x10000 {
            bytes.append(sixteen)
            append(UInt16(count))
        } else {
            bytes.append(thirtyTwo)
            append(UInt32(count))
        }
    }

    private mutating func append<T: FixedWidthInteger>(_ number: T) {
        withUnsafeBytes(of: number.bigEndian) { bytes += $0 }
    }
}

struct MessagePackReader {
    let bytes: [UInt8]
    let maxDepth: Int
    var offset = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func read(depth: Int) throws(MessagePackError) -> MessagePackValue {
        guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth) }
        let start = offset
        let byte = try take()
        switch byte {
        case 0x00 ... 0x7f: return .int(Int64(byte))
        case 0x80 ... 0x8f: return try map(count: Int(byte & 0x0f), depth: depth)
        case 0x90 ... 0x9f: return try array(count: Int(byte & 0x0f), depth: depth)
        case 0xa0 ... 0xbf: return try string(count: Int(byte & 0x1f))
        case 0xc0: return .nil
        case 0xc2: return .bool(false)
        case 0xc3: return .bool(true)
        case 0xc4: return .binary(try data(count: Int(try integer(UInt8.self))))
        case 0xc5: return .binary(try data(count: Int(try integer(UInt16.self))))
        case 0xc6: return .binary(try data(count: Int(try integer(UInt32.self))))
        case 0xc7: return try ext(count: Int(try integer(UInt8.self)))
        case 0xc8: return try ext(count: Int(try integer(UInt16.self)))
        case 0xc9: return try ext(count: Int(try integer(UInt32.self)))
        case 0xca: return .float(Double(Float(bitPattern: try integer(UInt32.self))))
        case 0xcb: return .float(Double(bitPattern: try integer(UInt64.self)))
        case 0xcc: return .int(Int64(try integer(UInt8.self)))
        case 0xcd: return .int(Int64(try integer(UInt16.self)))
        case 0xce: return .int(Int64(try integer(UInt32.self)))
        case 0xcf:
            let number = try integer(UInt64.self)
            return number > UInt64(Int64.max) ? .uint(number) : .int(Int64(number))
        case 0xd0: return .int(Int64(Int8(bitPattern: try integer(UInt8.self))))
        case 0xd1: return .int(Int64(Int16(bitPattern: try integer(UInt16.self))))
        case 0xd2: return .int(Int64(Int32(bitPattern: try integer(UInt32.self))))
        case 0xd3: return .int(Int64(bitPattern: try integer(UInt64.self)))
        case 0xd4: return try ext(count: 1)
        case 0xd5: return try ext(count: 2)
        case 0xd6: return try ext(count: 4)
        case 0xd7: return try ext(count: 8)
        case 0xd8: return try ext(count: 16)
        case 0xd9: return try string(count: Int(try integer(UInt8.self)))
        case 0xda: return try string(count: Int(try integer(UInt16.self)))
        case 0xdb: return try string(count: Int(try integer(UInt32.self)))
        case 0xdc: return try array(count: Int(try integer(UInt16.self)), depth: depth)
        case 0xdd: return try array(count: Int(try integer(UInt32.self)), depth: depth)
        case 0xde: return try map(count: Int(try integer(UInt16.self)), depth: depth)
        case 0xdf: return try map(count: Int(try integer(UInt32.self)), depth: depth)
        case 0xe0 ... 0xff: return .int(Int64(Int8(bitPattern: byte)))
        default: throw .invalidByte(byte, offset: start)
        }
    }

    private mutating func take() throws(MessagePackError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func integer<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) throws(MessagePackError) -> T {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { throw .truncated(offset: bytes.count) }
        var value: T = 0
        for byte in bytes[offset ..< offset + size] { value = value << 8 | T(byte) }
        offset += size
        return value
    }

    private mutating func slice(_ count: Int) throws(MessagePackError) -> ArraySlice<UInt8> {
        // Checked before anything is allocated: a length from the network is not trusted.
        guard count <= bytes.count - offset else { throw .truncated(offset: bytes.count) }
        defer { offset += count }
        return bytes[offset ..< offset + count]
    }

    private mutating func data(count: Int) throws(MessagePackError) -> Data {
        Data(try slice(count))
    }

    private mutating func string(count: Int) throws(MessagePackError) -> MessagePackValue {
        let start = offset
        let raw = try slice(count)
        guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidString(offset: start) }
        return .string(text)
    }

    private mutating func ext(count: Int) throws(MessagePackError) -> MessagePackValue {
        let type = Int8(bitPattern: try take())
        return .ext(type: type, data: try data(count: count))
    }

    private mutating func array(count: Int, depth: Int) throws(MessagePackError) -> MessagePackValue {
        // Every element takes at least one byte: a count past what is left is a lie.
        guard count <= bytes.count - offset else { throw .truncated(offset: bytes.count) }
        var items: [MessagePackValue] = []
        items.reserveCapacity(count)
        for _ in 0 ..< count { items.append(try read(depth: depth + 1)) }
        return .array(items)
    }

    private mutating func map(count: Int, depth: Int) throws(MessagePackError) -> MessagePackValue {
        guard count <= (bytes.count - offset) / 2 else { throw .truncated(offset: bytes.count) }
        var pairs: [MessagePackPair] = []
        pairs.reserveCapacity(count)
        for _ in 0 ..< count {
            let key = try read(depth: depth + 1)
            pairs.append(MessagePackPair(key, try read(depth: depth + 1)))
        }
        return .map(pairs)
    }
}
