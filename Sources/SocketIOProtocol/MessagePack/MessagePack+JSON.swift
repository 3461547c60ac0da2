import Foundation

extension MessagePackValue {
    /// `value` as `@msgpack/msgpack` encodes the JavaScript value it stands for: an integral
    /// number that fits 64 bits as an integer format, any other number as float 64, binary as
    /// bin, objects as maps with string keys (in order).
    public init(json value: JSONValue) {
        switch value {
        case .null: self = .nil
        case .bool(let flag): self = .bool(flag)
        case .number(let number):
            if number.rounded() == number, abs(number) < 9.2e18, let integer = Int64(exactly: number) {
                self = .int(integer)
            } else {
                self = .float(number)
            }
        case .string(let text): self = .string(text)
        case .binary(let data): self = .binary(data)
        case .array(let items): self = .array(items.map(MessagePackValue.init(json:)))
        case .object(let object): self = .map(object.map { MessagePackPair(.string($0.key), MessagePackValue(json: $0.value)) })
        }
    }
}

extension JSONValue {
    /// The JSON (with binary) a MessagePack value stands for, as `@msgpack/msgpack` decodes it to
    /// JavaScript: integers and floats as numbers, bin as binary, a timestamp (extension `-1`)
    /// as the ISO 8601 string a `Date` serializes to. Maps need string keys.
    public init(messagePack value: MessagePackValue) throws(MessagePackError) {
        switch value {
        case .nil: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .number(Double(number))
        case .uint(let number): self = .number(Double(number))
        case .float(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .binary(let data): self = .binary(data)
        case .array(let items):
            var values: [JSONValue] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try JSONValue(messagePack: item)) }
            self = .array(values)
        case .map(let pairs):
            var object = JSONObject()
            for pair in pairs {
                guard case .string(let key) = pair.key else { throw .notJSON("a map key that is not a string") }
                object[key] = try JSONValue(messagePack: pair.value)
            }
            self = .object(object)
        case .ext(-1, let data):
            self = .string(try Self.timestamp(data))
        case .ext(let type, _):
            throw .notJSON("extension type \(type)")
        }
    }

    /// The timestamp extension (32, 64 or 96 bits) as an ISO 8601 string with milliseconds.
    private static func timestamp(_ data: Data) throws(MessagePackError) -> String {
        let bytes = Array(data)
        func number(_ range: Range<Int>) -> UInt64 { bytes[range].reduce(0) { $0 << 8 | UInt64($1) } }
        let seconds: Int64
        let nanoseconds: UInt64
        switch bytes.count {
        case 4:
            seconds = Int64(number(0 ..< 4))
            nanoseconds = 0
        case 8:
            let packed = number(0 ..< 8)
            nanoseconds = packed >> 34
            seconds = Int64(packed & 0x3_ffff_ffff)
        case 12:
            nanoseconds = number(0 ..< 4)
            seconds = Int64(bitPattern: number(4 ..< 12))
        default:
            throw .notJSON("a timestamp of \(bytes.count) bytes")
        }
        // The specification caps nanoseconds below a second; JavaScript's Date spans ±8.64e15 ms.
        // `magnitude`, not `abs`: the seconds of a 12-byte timestamp may be Int64.min.
        guard nanoseconds < 1_000_000_000, seconds.magnitude <= 8_640_000_000_000 else {
            throw .notJSON("a timestamp out of range")
        }
        // Whole seconds formatted, milliseconds appended from the integer (a Double would
        // round 0.678 down to 0.677), as JavaScript's `Date.prototype.toJSON` writes them.
        var style = Date.ISO8601FormatStyle()
        style.timeZone = TimeZone(identifier: "UTC")!
        let whole = Date(timeIntervalSince1970: Double(seconds)).formatted(style)
        let milliseconds = String(nanoseconds / 1_000_000)
        let padded = String(repeating: "0", count: 3 - milliseconds.count) + milliseconds
        return whole.dropLast() + "." + padded + "Z"
    }
}
