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

/// A JSON parser over contiguous UTF-8 bytes.
///
/// It reads the bytes in place, builds strings without escapes straight from their byte range,
/// and converts common numbers without going through text. Nesting is tracked on an explicit
/// stack rather than by recursion, so no input can overflow the thread's stack (which matters on
/// small-stack threads, and in debug builds with large frames); `maxDepth` still bounds it so
/// that hostile input such as `[[[[…` fails fast. Every failure is a ``JSONError`` with its offset.
struct JSONParser {
    /// How deeply arrays and objects may nest before parsing fails with `.tooDeep`.
    static let defaultMaxDepth = 512

    /// An array or object still being parsed.
    private enum Container {
        /// An array whose elements so far are `valueStack[firstValue...]`.
        case array(firstValue: Int)
        /// An object whose members so far are `valueStack[firstValue...]`, waiting for the
        /// value of `key`.
        case object(firstValue: Int, key: String)
    }

    let base: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    var index = 0
    /// Reused across strings that contain escapes, so decoding them allocates once per parse.
    var scratch: [UInt8] = []
    private var containers: [Container] = []
    /// The elements and members of the open containers, innermost last (array elements with an
    /// empty key). Each container is built once, at its closing bracket, with its exact size,
    /// instead of growing by repeated reallocation.
    private var valueStack: [(key: String, value: JSONValue)] = []

    /// The scratch capacity reserved when the first container opens: enough for the nesting and
    /// the open members of a typical event payload, so the stacks allocate once per parse.
    private static let initialContainerCapacity = 8
    private static let initialValueCapacity = 16

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

    /// Parses one value, containers included: opening a container pushes it and goes on to its
    /// first element; completing a value adds it to the innermost open container, closing
    /// containers as their brackets arrive, until the outermost value is complete.
    private mutating func parseValue() throws(JSONError) -> JSONValue {
        nextValue: while true {
            skipWhitespace()
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            var value: JSONValue
            switch base[index] {
            case JSONByte.quote:
                value = .string(try parseString())
            case JSONByte.minus, JSONByte.zero...JSONByte.nine:
                value = .number(try parseNumber())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case JSONByte.openBracket:
                try enterContainer()
                if peek(JSONByte.closeBracket) {
                    value = .array([])
                } else {
                    reserveStacks()
                    containers.append(.array(firstValue: valueStack.count))
                    continue nextValue
                }
            case JSONByte.openBrace:
                try enterContainer()
                if peek(JSONByte.closeBrace) {
                    value = .object(JSONObject())
                } else {
                    reserveStacks()
                    containers.append(.object(firstValue: valueStack.count, key: try parseKey()))
                    continue nextValue
                }
            default:
                throw JSONError(.unexpectedCharacter, offset: index)
            }

            // Hand the value to its container; a closing bracket completes that one in turn.
            while let container = containers.last {
                skipWhitespace()
                guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
                let separator = base[index]
                index += 1
                switch container {
                case .array(let firstValue):
                    valueStack.append((key: "", value: value))
                    if separator == JSONByte.comma { continue nextValue }
                    guard separator == JSONByte.closeBracket else {
                        throw JSONError(.unexpectedCharacter, offset: index - 1)
                    }
                    value = .array(popElements(from: firstValue))
                case .object(let firstValue, let key):
                    valueStack.append((key: key, value: value))
                    if separator == JSONByte.comma {
                        containers[containers.count - 1] = .object(firstValue: firstValue, key: try parseKey())
                        continue nextValue
                    }
                    guard separator == JSONByte.closeBrace else {
                        throw JSONError(.unexpectedCharacter, offset: index - 1)
                    }
                    value = .object(popMembers(from: firstValue))
                }
                containers.removeLast()
            }
            return value
        }
    }

    /// Gives the scratch stacks their initial capacity when the first container opens, so that a
    /// scalar document allocates nothing for them.
    private mutating func reserveStacks() {
        guard valueStack.capacity == 0 else { return }
        containers.reserveCapacity(Self.initialContainerCapacity)
        valueStack.reserveCapacity(Self.initialValueCapacity)
    }

    /// The elements of the array that opened at `firstValue`, taken off the stack.
    private mutating func popElements(from firstValue: Int) -> [JSONValue] {
        let elements = valueStack[firstValue...].map(\.value)
        valueStack.removeLast(valueStack.count - firstValue)
        return elements
    }

    /// The object that opened at `firstValue`, its members taken off the stack; a duplicate key
    /// keeps its first position and its last value, as `JSON.parse` does.
    private mutating func popMembers(from firstValue: Int) -> JSONObject {
        let object = JSONObject(parsedMembers: valueStack[firstValue...])
        valueStack.removeLast(valueStack.count - firstValue)
        return object
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let bytes = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in bytes {
            guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
            guard base[index] == byte else { throw JSONError(.unexpectedCharacter, offset: index) }
            index += 1
        }
    }

    /// Steps over an opening bracket or brace, failing if it would nest too deeply.
    private mutating func enterContainer() throws(JSONError) {
        if containers.count >= maxDepth { throw JSONError(.tooDeep, offset: index) }
        index += 1
    }

    /// Skips whitespace and steps over `byte` if it comes next.
    private mutating func peek(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < end, base[index] == byte else { return false }
        index += 1
        return true
    }

    /// An object member's key and its colon.
    private mutating func parseKey() throws(JSONError) -> String {
        skipWhitespace()
        guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
        guard base[index] == JSONByte.quote else { throw JSONError(.unexpectedCharacter, offset: index) }
        let key = try parseString()
        skipWhitespace()
        guard index < end else { throw JSONError(.unexpectedEnd, offset: index) }
        guard base[index] == JSONByte.colon else { throw JSONError(.unexpectedCharacter, offset: index) }
        index += 1
        return key
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
