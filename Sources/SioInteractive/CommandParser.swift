import SocketIOProtocol

/// Turns a line typed in `sio connect` into an ``InteractiveCommand``, or a
/// ``CommandParseError`` that says what is wrong and where.
///
/// Arguments are JSON values separated by spaces; a value may contain spaces inside strings,
/// arrays and objects: `emit chat "hello world" {"to": "all", "tags": [1, 2]}` has two.
/// The event name is a bare word, or a JSON string for names with spaces: `emit "my event" 1`.
package enum CommandParser {
    /// The command on `line`, or nil for a blank line.
    package static func parse(_ line: String) throws(CommandParseError) -> InteractiveCommand? {
        let trimmed = line.drop(while: \.isWhitespace)
        guard !trimmed.isEmpty else { return nil }
        let word = String(trimmed.prefix(while: { !$0.isWhitespace }))
        let rest = trimmed.dropFirst(word.count)
        let bare: InteractiveCommand
        switch word {
        case "emit", "ack":
            let (event, items) = try parseEvent(rest, command: word, line: line)
            return word == "emit" ? .emit(event: event, items: items) : .ack(event: event, items: items)
        case "status": bare = .status
        case "connect": bare = .connect
        case "disconnect": bare = .disconnect
        case "help", "?": bare = .help
        case "quit", "exit": bare = .quit
        default: throw .unknownCommand(word)
        }
        guard rest.allSatisfy(\.isWhitespace) else { throw .unexpectedArguments(command: word) }
        return bare
    }

    private static func parseEvent(
        _ text: Substring, command: String, line: String
    ) throws(CommandParseError) -> (String, [JSONValue]) {
        var reader = JSONValueReader(text, line: line, command: command)
        reader.skipSpaces()
        guard !reader.isAtEnd else { throw .missingEventName(command: command) }
        let event: String
        if reader.startsWithQuote {
            guard case .string(let name) = try reader.next(argument: 0) else {
                throw .missingEventName(command: command)  // unreachable: a quote starts a string
            }
            event = name
        } else {
            event = reader.nextWord()
        }
        var items: [JSONValue] = []
        while true {
            reader.skipSpaces()
            if reader.isAtEnd { return (event, items) }
            items.append(try reader.next(argument: items.count + 1))
        }
    }
}

/// Reads JSON values one after another from part of a line, with the public whole-document
/// parser: a value followed by more text fails with `trailingData` at the offset where the next
/// value starts, so the value is the text before that offset.
struct JSONValueReader {
    private let line: String
    private let command: String
    private var rest: Substring
    /// Whether the last value read was followed by whitespace (or nothing).
    private var separated = true

    init(_ text: Substring, line: String, command: String) {
        self.rest = text
        self.line = line
        self.command = command
    }

    var isAtEnd: Bool { rest.isEmpty }
    var startsWithQuote: Bool { rest.first == "\"" }

    mutating func skipSpaces() {
        let spaces = rest.prefix(while: \.isWhitespace)
        if !spaces.isEmpty { separated = true }
        rest = rest.dropFirst(spaces.count)
    }

    /// The next whitespace-delimited word, as is.
    mutating func nextWord() -> String {
        let word = rest.prefix(while: { !$0.isWhitespace })
        rest = rest.dropFirst(word.count)
        separated = true  // what follows a word is whitespace or nothing
        return String(word)
    }

    /// The next JSON value; `argument` numbers it in errors.
    mutating func next(argument: Int) throws(CommandParseError) -> JSONValue {
        guard separated else {
            throw .missingSpace(command: command, argument: argument, column: column(of: rest.startIndex))
        }
        do throws(JSONError) {
            let value = try JSONValue(parsing: rest)
            rest = rest[rest.endIndex...]
            return value
        } catch let error where error.kind == .trailingData {
            let next = rest.utf8.index(rest.startIndex, offsetBy: error.offset)
            let text = rest[..<next]
            let value: JSONValue
            do throws(JSONError) {
                value = try JSONValue(parsing: text)
            } catch {
                throw invalid(error, argument: argument)  // unreachable: the prefix parsed above
            }
            separated = text.last?.isWhitespace ?? false
            rest = rest[next...]
            return value
        } catch {
            throw invalid(error, argument: argument)
        }
    }

    private func invalid(_ error: JSONError, argument: Int) -> CommandParseError {
        let position = rest.utf8.index(rest.startIndex, offsetBy: min(error.offset, rest.utf8.count))
        let found = position < rest.endIndex ? rest[position] : nil
        return .invalidJSON(
            command: command, argument: argument, kind: error.kind, column: column(of: position), found: found)
    }

    /// The column (from 1, in characters) of `index` in the whole line.
    private func column(of index: Substring.Index) -> Int {
        line[..<index].count + 1
    }
}
