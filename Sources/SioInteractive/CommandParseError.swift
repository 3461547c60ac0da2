package import SocketIOProtocol

/// Why a line typed in `sio connect` is not a command; the description is the one-line message.
package enum CommandParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first word is not a command.
    case unknownCommand(String)
    /// `emit` or `ack` without an event name.
    case missingEventName(command: String)
    /// A command that takes no arguments got some.
    case unexpectedArguments(command: String)
    /// Argument `argument` (from 1; 0 is a quoted event name) is not JSON: what is wrong, the
    /// column in the line (from 1) and the character found there, if any.
    case invalidJSON(command: String, argument: Int, kind: JSONError.Kind, column: Int, found: Character?)
    /// Two values with nothing between them, such as `"a""b"`.
    case missingSpace(command: String, argument: Int, column: Int)

    package var description: String {
        switch self {
        case .unknownCommand(let word):
            "unknown command \"\(word)\"; commands: \(InteractiveCommand.words.joined(separator: ", "))"
        case .missingEventName(let command):
            "\(command) needs an event name: \(command) EVENT [JSON …]"
        case .unexpectedArguments(let command):
            "\(command) takes no arguments"
        case .invalidJSON(let command, let argument, let kind, let column, let found):
            "\(command): \(argument == 0 ? "the event name" : "argument \(argument)") is not valid JSON: "
                + Self.explain(kind) + " at column \(column)" + Self.hint(kind, found: found)
        case .missingSpace(let command, let argument, let column):
            "\(command): put a space before argument \(argument) (column \(column))"
        }
    }

    private static func explain(_ kind: JSONError.Kind) -> String {
        switch kind {
        case .unexpectedEnd: "it ends too early"
        case .unexpectedCharacter: "unexpected character"
        case .invalidNumber: "invalid number"
        case .invalidEscape: "invalid escape sequence"
        case .invalidUTF8: "invalid UTF-8"
        case .tooDeep: "nested too deeply"
        case .trailingData: "unexpected text after the value"
        }
    }

    /// A bare word is the usual mistake: say how to write a string.
    private static func hint(_ kind: JSONError.Kind, found: Character?) -> String {
        guard kind == .unexpectedCharacter, let found, found.isLetter else { return "" }
        return " (strings need double quotes: \"hello\")"
    }
}
