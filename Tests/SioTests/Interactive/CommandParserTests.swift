import SioInteractive
import SocketIOProtocol
import Testing

@Suite struct CommandParserTests {
    private func parse(_ line: String) throws -> InteractiveCommand? {
        try CommandParser.parse(line)
    }

    private func error(_ line: String) -> CommandParseError? {
        do throws(CommandParseError) {
            _ = try CommandParser.parse(line)
            return nil
        } catch {
            return error
        }
    }

    @Test func bareCommands() throws {
        #expect(try parse("status") == .status)
        #expect(try parse("  help  ") == .help)
        #expect(try parse("quit") == .quit)
        #expect(try parse("exit") == .quit)
        #expect(try parse("connect") == .connect)
        #expect(try parse("disconnect") == .disconnect)
        #expect(try parse("") == nil)
        #expect(try parse("   ") == nil)
    }

    @Test func emitWithoutArguments() throws {
        #expect(try parse("emit ping") == .emit(event: "ping", items: []))
    }

    @Test func eachJSONValueIsOneArgument() throws {
        #expect(try parse(#"emit echo "hi" 42 true null [1,2] {"a":1}"#)
            == .emit(event: "echo", items: ["hi", 42, true, nil, [1, 2], ["a": 1]]))
    }

    @Test func valuesMayContainSpaces() throws {
        let line = #"ack chat "hello world"   {"to": "all", "tags": [1, 2]}  [ 3 , "x y" ] "#
        #expect(try parse(line) == .ack(event: "chat", items: ["hello world", ["to": "all", "tags": [1, 2]], [3, "x y"]]))
    }

    @Test func aQuotedEventNameMayHaveSpaces() throws {
        #expect(try parse(#"emit "my event" 1"#) == .emit(event: "my event", items: [1]))
    }

    @Test func unicodeAndEscapes() throws {
        #expect(try parse(#"emit 漢 "é\n😀" "\u00e9""#) == .emit(event: "漢", items: ["é\n😀", "é"]))
    }

    @Test func unknownCommand() {
        #expect(error("bogus 1") == .unknownCommand("bogus"))
        #expect(error("bogus")?.description.hasPrefix(#"unknown command "bogus"; commands: emit, ack"#) == true)
    }

    @Test func missingEventName() {
        #expect(error("emit") == .missingEventName(command: "emit"))
        #expect(error("ack   ") == .missingEventName(command: "ack"))
        #expect(error("ack")?.description == "ack needs an event name: ack EVENT [JSON …]")
    }

    @Test func argumentsWhereNoneAreTaken() {
        #expect(error("status now") == .unexpectedArguments(command: "status"))
        #expect(error("quit 1")?.description == "quit takes no arguments")
    }

    @Test func malformedJSONSaysWhichArgumentAndWhere() {
        let bad = error(#"emit echo 1 {"a":}"#)
        #expect(bad == .invalidJSON(command: "emit", argument: 2, kind: .unexpectedCharacter, column: 18, found: "}"))
        #expect(bad?.description == "emit: argument 2 is not valid JSON: unexpected character at column 18")
    }

    @Test func anUnfinishedValue() {
        let bad = error(#"ack echo "open"#)
        #expect(bad == .invalidJSON(command: "ack", argument: 1, kind: .unexpectedEnd, column: 15, found: nil))
        #expect(bad?.description == "ack: argument 1 is not valid JSON: it ends too early at column 15")
    }

    @Test func aBareWordGetsAHint() {
        let bad = error("emit echo hello")
        #expect(bad == .invalidJSON(command: "emit", argument: 1, kind: .unexpectedCharacter, column: 11, found: "h"))
        #expect(bad?.description.hasSuffix(#"(strings need double quotes: "hello")"#) == true)
    }

    @Test func valuesNeedSpacesBetweenThem() {
        #expect(error(#"emit e "a""b""#) == .missingSpace(command: "emit", argument: 2, column: 11))
        #expect(error(#"emit e [1]2"#) == .missingSpace(command: "emit", argument: 2, column: 11))
    }

    @Test func columnsCountCharactersNotBytes() {
        #expect(error(#"emit é "é" x"#) == .invalidJSON(command: "emit", argument: 2, kind: .unexpectedCharacter, column: 12, found: "x"))
    }

    @Test func aBadQuotedEventName() {
        #expect(error(#"emit "open"#) == .invalidJSON(command: "emit", argument: 0, kind: .unexpectedEnd, column: 11, found: nil))
        #expect(error(#"emit "open"#)?.description.contains("the event name is not valid JSON") == true)
    }

    @Test func hostileInputFailsWithoutCrashing() {
        let deep = "emit e " + String(repeating: "[", count: 10_000)
        #expect(error(deep) != nil)
        #expect(error("emit e \u{1}") != nil)
    }
}
