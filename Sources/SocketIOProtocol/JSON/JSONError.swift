/// Why JSON text could not be parsed, and where.
///
/// A typed error so that callers on the hot path (a frame arriving from a server) can tell a
/// truncated packet from a malformed one without string matching, and so that a bad packet can be
/// logged with the exact byte that broke it.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure; what a caller switches on.
    public enum Kind: Sendable, Hashable {
        /// The input ended inside a value: typically a truncated frame.
        case unexpectedEnd
        /// A byte that cannot start or continue a value here (including raw control characters
        /// inside strings and anything outside strings that is not JSON syntax).
        case unexpectedCharacter
        /// A number that breaks RFC 8259's grammar: `01`, `-`, `1.`, `1e`.
        case invalidNumber
        /// A backslash escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`.
        case invalidEscape
        /// A string whose bytes are not well-formed UTF-8.
        case invalidUTF8
        /// Arrays and objects nested deeper than the parser allows; guards the stack.
        case tooDeep
        /// A complete value followed by something other than whitespace.
        case trailingData
    }

    /// The class of failure.
    public var kind: Kind
    /// The byte offset in the input (from 0) at which the failure was detected.
    public var offset: Int

    /// An error of this kind at this byte offset.
    public init(_ kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// A one-line explanation naming the byte offset, for logs.
    public var description: String {
        let what: String
        switch kind {
        case .unexpectedEnd: what = "unexpected end of input"
        case .unexpectedCharacter: what = "unexpected character"
        case .invalidNumber: what = "invalid number"
        case .invalidEscape: what = "invalid escape sequence"
        case .invalidUTF8: what = "invalid UTF-8"
        case .tooDeep: what = "nesting too deep"
        case .trailingData: what = "unexpected data after the value"
        }
        return "JSON error: \(what) at byte \(offset)"
    }
}
