public import Foundation

extension JSONValue {
    /// Parses JSON text (RFC 8259): the path every incoming Socket.IO event takes from frame to
    /// handler arguments. Any value may be at the top level; trailing whitespace is allowed,
    /// anything else after the value is ``JSONError/Kind/trailingData``.
    public init(parsing text: String) throws(JSONError) {
        var text = text
        self = try text.withUTF8 { JSONParser.parse(UnsafeRawBufferPointer($0)) }.get()
    }

    /// Parses JSON text from part of a string, such as a packet's payload after its header,
    /// without copying it out first.
    public init(parsing text: Substring) throws(JSONError) {
        var text = text
        self = try text.withUTF8 { JSONParser.parse(UnsafeRawBufferPointer($0)) }.get()
    }

    /// Parses UTF-8 JSON bytes, such as a binary frame's body.
    public init(parsing data: Data) throws(JSONError) {
        self = try data.withUnsafeBytes { JSONParser.parse($0) }.get()
    }

    /// Parses UTF-8 JSON bytes in place, for callers that already hold a buffer (a NIO
    /// `ByteBuffer` view, say) and want to avoid a copy. The bytes are only read during the call.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(JSONError) {
        self = try JSONParser.parse(bytes).get()
    }
}

/// A recursive-descent JSON parser over contiguous UTF-8 bytes.
///
/// It reads the bytes in place, builds strings without escapes straight from their byte range,
/// converts common numbers without going through text, and bounds nesting so that hostile input
/// such as `[[[[…` cannot overflow the stack. Every failure is a ``JSONError`` with its offset.
struct JSONParser {
    /// How deeply arrays and objects may nest before parsing fails with `.tooDeep`.
    static let defaultMaxDepth = 512

    let base: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// Reused across strings that contain escapes, so decoding them allocates once per parse.
    var scratch: [UInt8] = []
    /// Elements of the arrays being parsed, innermost last; each array is copied out once at
    /// its exact size instead of growing by repeated reallocation.
    var elementStack: [JSONValue] = []

    private init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.base = base
        self.end = count
        self.maxDepth = maxDepth
    }

    /// Parses one complete JSON text; the result type sidesteps `rethrows` erasing typed errors.
    static func parse(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth
    ) -> Result<JSONValue, JSONError> {
        guard let address = bytes.baseAddress, !bytes.isEmpty else {
            return .failure(JSONError(.unexpectedEnd, offset: 0))
        }
        var parser = JSONParser(
            base: address.assumingMemoryBound(to: UInt8.self), count: bytes.count, maxDepth: maxDepth)
        return Result { () throws(JSONError) -> JSONValue in try parser.parseDocument() }
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        if index < end { throw JSONError(.trailingData, offset: index) }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
        switch base[index] {
        case JSONByte.quote: return .string(try parseString())
        case JSONByte.openBrace: return try parseObject()
        case JSONByte.openBracket: return try parseArray()
        case JSONByte.minus, JSONByte.zero...JSONByte.nine: return .number(try parseNumber())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw JSONError(.unexpectedCharacter, offset: index)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in bytes {
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            guard base[index] == byte else { throw JSONError(.unexpectedCharacter, offset: index) }
            index += 1
        }
    }

    private mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw JSONError(.tooDeep, offset: index) }
        index += 1  // the opening bracket or brace
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        skipWhitespace()
        if index < end, base[index] == JSONByte.closeBracket {
            index += 1
            return .array([])
        }
        let first = elementStack.count
        while true {
            let element = try parseValue()
            elementStack.append(element)
            skipWhitespace()
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            let byte = base[index]
            index += 1
            if byte == JSONByte.comma { continue }
            if byte == JSONByte.closeBracket { break }
            throw JSONError(.unexpectedCharacter, offset: index - 1)
        }
        let elements = Array(elementStack[first...])
        elementStack.removeSubrange(first...)
        return .array(elements)
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var object = JSONObject()
        skipWhitespace()
        if index < end, base[index] == JSONByte.closeBrace {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            guard base[index] == JSONByte.quote else { throw JSONError(.unexpectedCharacter, offset: index) }
            let key = try parseString()
            skipWhitespace()
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            guard base[index] == JSONByte.colon else { throw JSONError(.unexpectedCharacter, offset: index) }
            index += 1
            object[key] = try parseValue()  // a duplicate key keeps the last value, like JSON.parse
            skipWhitespace()
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            let byte = base[index]
            index += 1
            if byte == JSONByte.comma { continue }
            if byte == JSONByte.closeBrace { return .object(object) }
            throw JSONError(.unexpectedCharacter, offset: index - 1)
        }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < end {
            switch base[index] {
            case JSONByte.space, JSONByte.tab, JSONByte.newline, JSONByte.carriageReturn: index += 1
            default: return
            }
        }
    }

    // MARK: Numbers

    @inline(__always)
    private func digit(at position: Int) -> UInt8? {
        guard position < end else { return nil }
        let value = base[position] &- JSONByte.zero
        return value < 10 ? value : nil
    }

    /// Validates RFC 8259's number grammar and converts. Numbers whose digits fit in 2^53 and
    /// whose decimal exponent is within ±22 are converted exactly with one multiplication or
    /// division (correctly rounded); the rest go through the standard library's correctly
    /// rounded text conversion, so results match `JSON.parse` bit for bit.
    private mutating func parseNumber() throws(JSONError) -> Double {
        let start = index
        let negative = base[index] == JSONByte.minus
        if negative { index += 1 }
        var mantissa: UInt64 = 0
        var mantissaOverflow = false
        func accumulate(_ digit: UInt8) {
            if mantissa <= (UInt64.max - 9) / 10 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
            } else {
                mantissaOverflow = true
            }
        }

        guard let first = digit(at: index) else { throw JSONError(.invalidNumber, offset: index) }
        index += 1
        if first == 0 {
            if digit(at: index) != nil { throw JSONError(.invalidNumber, offset: index) }
        } else {
            accumulate(first)
            while let next = digit(at: index) {
                accumulate(next)
                index += 1
            }
        }

        var fractionDigits = 0
        if index < end, base[index] == JSONByte.period {
            index += 1
            guard digit(at: index) != nil else { throw JSONError(.invalidNumber, offset: index) }
            while let next = digit(at: index) {
                accumulate(next)
                fractionDigits += 1
                index += 1
            }
        }

        var exponent = 0
        if index < end, base[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < end, base[index] == JSONByte.minus || base[index] == JSONByte.plus {
                exponentNegative = base[index] == JSONByte.minus
                index += 1
            }
            guard digit(at: index) != nil else { throw JSONError(.invalidNumber, offset: index) }
            while let next = digit(at: index) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(next) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }

        if !mantissaOverflow, mantissa <= 1 << 53 {
            let power = exponent - fractionDigits
            let magnitude = Double(mantissa)
            var result: Double?
            if power == 0 {
                result = magnitude
            } else if power > 0, power <= 22 {
                result = magnitude * JSONParser.powersOfTen[power]
            } else if power < 0, power >= -22 {
                result = magnitude / JSONParser.powersOfTen[-power]
            }
            if let result { return negative ? -result : result }
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
        guard let value = Double(text) else { throw JSONError(.invalidNumber, offset: start) }
        return value
    }

    /// 10^0 … 10^22, all exactly representable as `Double`.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}

/// The ASCII bytes JSON's grammar is made of, shared by the parser and the writer.
enum JSONByte {
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let period = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
}
