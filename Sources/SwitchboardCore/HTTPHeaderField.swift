/// What an extra request header must be to be sent (RFC 9110 §5.1, §5.5): a name of token
/// characters, a value without control characters but tab. Every place that takes headers from
/// a caller checks them with this before a connection is made: NIO stops the process on a
/// non-ASCII name, and refuses a control character in a value only when the request is written.
package enum HTTPHeaderField {
    /// Why the header `name: value` cannot be sent, or `nil` when it can.
    package static func problem(name: String, value: String) -> String? {
        if name.isEmpty { return "a header has an empty name" }
        if !name.utf8.allSatisfy(isTokenByte) {
            return "header name \"\(name)\" is not an HTTP token (ASCII letters, digits and !#$%&'*+-.^_`|~ only)"
        }
        if value.utf8.contains(where: isControlByte) {
            return "the value of header \"\(name)\" has a control character (CR, LF, NUL or another; only tab is allowed)"
        }
        return nil
    }

    /// The problem of the first of `headers` that cannot be sent, or `nil` when all can.
    package static func problem(in headers: some Sequence<(name: String, value: String)>) -> String? {
        for header in headers {
            if let problem = problem(name: header.name, value: header.value) { return problem }
        }
        return nil
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isControlByte(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }
}
