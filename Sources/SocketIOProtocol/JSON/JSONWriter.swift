public import Foundation

/// How the writer represents ``JSONValue/binary(_:)``, which JSON itself cannot hold.
public enum JSONBinaryEncoding: Sendable {
    /// Socket.IO's binary packets: each binary value becomes `{"_placeholder":true,"num":N}` in
    /// traversal order and its bytes travel as a separate attachment.
    case placeholders
    /// Self-contained JSON for logs and plain-text transports: `{"base64":"…"}`.
    case base64Object
}

extension JSONValue {
    /// Compact JSON, byte-for-byte what JavaScript's `JSON.stringify` writes; binary values
    /// become `{"base64":"…"}` objects so the text stands on its own.
    public var jsonString: String {
        var attachments: [Data] = []
        var buffer: [UInt8] = []
        buffer.reserveCapacity(JSONWriter.initialCapacity)
        write(to: &buffer, binary: .base64Object, attachments: &attachments)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Compact JSON with each binary value replaced by `{"_placeholder":true,"num":N}`, as
    /// socket.io's encoder does for binary packets. `N` counts on from `attachments.count`, and
    /// the bytes are appended to `attachments` in the same order (array elements in index order,
    /// object members in insertion order).
    public func jsonString(extractingAttachmentsInto attachments: inout [Data]) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(JSONWriter.initialCapacity)
        write(to: &buffer, binary: .placeholders, attachments: &attachments)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends the compact JSON's UTF-8 bytes to `buffer`, for encoders that assemble a whole
    /// frame in one buffer; binary values become placeholders as in
    /// ``jsonString(extractingAttachmentsInto:)``.
    public func write(to buffer: inout [UInt8], attachments: inout [Data]) {
        write(to: &buffer, binary: .placeholders, attachments: &attachments)
    }

    /// Appends the compact JSON's UTF-8 bytes to `buffer`, writing binary values as `binary`
    /// says; `attachments` only grows with ``JSONBinaryEncoding/placeholders``.
    public func write(to buffer: inout [UInt8], binary: JSONBinaryEncoding, attachments: inout [Data]) {
        switch self {
        case .null:
            JSONWriter.append("null", to: &buffer)
        case .bool(let value):
            JSONWriter.append(value ? "true" : "false", to: &buffer)
        case .number(let value):
            JSONWriter.writeNumber(value, to: &buffer)
        case .string(let value):
            JSONWriter.writeString(value, to: &buffer)
        case .array(let elements):
            buffer.append(JSONByte.openBracket)
            for (position, element) in elements.enumerated() {
                if position > 0 { buffer.append(JSONByte.comma) }
                element.write(to: &buffer, binary: binary, attachments: &attachments)
            }
            buffer.append(JSONByte.closeBracket)
        case .object(let object):
            buffer.append(JSONByte.openBrace)
            for (position, member) in object.members.enumerated() {
                if position > 0 { buffer.append(JSONByte.comma) }
                JSONWriter.writeString(member.key, to: &buffer)
                buffer.append(JSONByte.colon)
                member.value.write(to: &buffer, binary: binary, attachments: &attachments)
            }
            buffer.append(JSONByte.closeBrace)
        case .binary(let data):
            switch binary {
            case .placeholders:
                JSONWriter.append(#"{"_placeholder":true,"num":"#, to: &buffer)
                JSONWriter.writeInteger(UInt64(attachments.count), to: &buffer)
                buffer.append(JSONByte.closeBrace)
                // Room for a few at the first, rather than growing one attachment at a time.
                if attachments.capacity == 0 { attachments.reserveCapacity(4) }
                attachments.append(data)
            case .base64Object:
                JSONWriter.append(#"{"base64":""#, to: &buffer)
                buffer.append(contentsOf: data.base64EncodedString().utf8)
                JSONWriter.append(#""}"#, to: &buffer)
            }
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON (``jsonString``), so values print and interpolate as what goes on the wire.
    public var description: String { jsonString }
}

/// The byte-level pieces of `JSON.stringify`.
enum JSONWriter {
    /// The capacity a fresh output buffer starts with: a typical event payload (a few hundred
    /// bytes) fits without growing, and larger ones double from here. Estimating the size by
    /// walking the value first cost more than the one reallocation it saves.
    static let initialCapacity = 256

    static func append(_ literal: StaticString, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A string in quotes, escaping only what `JSON.stringify` escapes: `"`, `\`, and U+0000–U+001F
    /// (short forms where JSON has them, else `\u00xx` in lowercase hex). Everything else,
    /// including `/` and non-ASCII, is copied through as UTF-8 in runs.
    static func writeString(_ string: String, to buffer: inout [UInt8]) {
        buffer.append(JSONByte.quote)
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for position in utf8.indices {
                let byte = utf8[position]
                guard byte < 0x20 || byte == JSONByte.quote || byte == JSONByte.backslash else { continue }
                if runStart < position {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                }
                runStart = position + 1
                buffer.append(JSONByte.backslash)
                switch byte {
                case JSONByte.quote, JSONByte.backslash: buffer.append(byte)
                case 0x08: buffer.append(UInt8(ascii: "b"))
                case 0x0C: buffer.append(UInt8(ascii: "f"))
                case 0x0A: buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(UInt8(ascii: "r"))
                case 0x09: buffer.append(UInt8(ascii: "t"))
                default:
                    append("u00", to: &buffer)
                    buffer.append(hexDigit(byte >> 4))
                    buffer.append(hexDigit(byte & 0x0F))
                }
            }
            if runStart < utf8.count {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            }
        }
        buffer.append(JSONByte.quote)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? JSONByte.zero + nibble : UInt8(ascii: "a") + nibble - 10
    }

    static func writeInteger(_ value: UInt64, to buffer: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch; UInt64.max has 20 digits
        var remaining = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { scratch in
            repeat {
                scratch[count] = JSONByte.zero + UInt8(remaining % 10)
                remaining /= 10
                count += 1
            } while remaining > 0
            for position in stride(from: count - 1, through: 0, by: -1) { buffer.append(scratch[position]) }
        }
    }

    /// A number as JavaScript's `Number.prototype.toString` writes it (ECMA-262 Number::toString):
    /// non-finite values are `null` (as in `JSON.stringify`), `-0` is `0`, integers below 1e21
    /// have no fraction or exponent, and everything else uses the shortest digits that round-trip
    /// with JavaScript's choice between plain and `1e-7` / `1.5e+300` notation.
    static func writeNumber(_ value: Double, to buffer: inout [UInt8]) {
        guard value.isFinite else { return append("null", to: &buffer) }
        if value == 0 { return buffer.append(JSONByte.zero) }
        if value.magnitude <= 9_007_199_254_740_992, value == value.rounded(.towardZero) {
            // Below 2^53 every integer is exact and is its own shortest representation.
            if value < 0 { buffer.append(JSONByte.minus) }
            return writeInteger(UInt64(value.magnitude), to: &buffer)
        }
        writeShortest(value, to: &buffer)
    }

    /// Reformats Swift's shortest round-trip `description` (same digits as JavaScript, different
    /// layout: `1e-07`, `1.0e+25`, `100.0`) into JavaScript's layout.
    private static func writeShortest(_ value: Double, to buffer: inout [UInt8]) {
        var digits: [UInt8] = []
        digits.reserveCapacity(24)
        var pointPosition: Int?  // digits before the decimal point
        var exponent = 0
        var exponentNegative = false
        var inExponent = false
        for byte in value.magnitude.description.utf8 {
            switch byte {
            case JSONByte.zero...JSONByte.nine:
                if inExponent { exponent = exponent * 10 + Int(byte - JSONByte.zero) } else { digits.append(byte) }
            case JSONByte.period: pointPosition = digits.count
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            case JSONByte.minus: exponentNegative = true
            default: break  // "+"
            }
        }
        // value = 0.d1d2…dk × 10^n, with d1 ≠ 0 and dk ≠ 0.
        var n = (pointPosition ?? digits.count) + (exponentNegative ? -exponent : exponent)
        let leadingZeros = digits.prefix { $0 == JSONByte.zero }.count
        digits.removeFirst(leadingZeros)
        n -= leadingZeros
        while digits.last == JSONByte.zero { digits.removeLast() }
        let k = digits.count
        guard k > 0 else { return buffer.append(JSONByte.zero) }

        if value < 0 { buffer.append(JSONByte.minus) }
        if k <= n, n <= 21 {
            buffer.append(contentsOf: digits)
            buffer.append(contentsOf: repeatElement(JSONByte.zero, count: n - k))
        } else if 0 < n, n <= 21 {
            buffer.append(contentsOf: digits[..<n])
            buffer.append(JSONByte.period)
            buffer.append(contentsOf: digits[n...])
        } else if -6 < n, n <= 0 {
            buffer.append(JSONByte.zero)
            buffer.append(JSONByte.period)
            buffer.append(contentsOf: repeatElement(JSONByte.zero, count: -n))
            buffer.append(contentsOf: digits)
        } else {
            buffer.append(digits[0])
            if k > 1 {
                buffer.append(JSONByte.period)
                buffer.append(contentsOf: digits[1...])
            }
            buffer.append(UInt8(ascii: "e"))
            buffer.append(n - 1 < 0 ? JSONByte.minus : JSONByte.plus)
            writeInteger(UInt64((n - 1).magnitude), to: &buffer)
        }
    }
}
