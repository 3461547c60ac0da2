import Foundation
import Testing

/// No lock box holds a function as its whole value (`NIOLockedValueBox<Handler?>`, `Mutex<() ->
/// Void>`): such a value is re-abstracted on every `inout` access, one more thunk each time, so
/// every read made the next call slower (the server slowed to a stop after thousands of
/// connections, twice: its connection-event hook, then its plain WebSocket handler). Functions
/// go inside a struct (`Callback`, or one of the owner's). Read from the sources: a box of a
/// function type, or of a typealias of one declared in the same file, fails here with its file
/// and line.
@Suite struct BoxedFunctionTests {
    /// The names `typealias Name = … -> …` declares in `texts`.
    static func functionAliases(in texts: [String]) -> Set<String> {
        var names: Set<String> = []
        for text in texts {
            for match in text.matches(of: /typealias\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^\n]*)/)
            where isFunctionType(String(match.output.2)) {
                names.insert(String(match.output.1))
            }
        }
        return names
    }

    /// `file:line: declaration` for each box in `text` whose whole value is a function: a
    /// function type, or a typealias of one that `text` declares.
    static func boxedFunctions(in text: String, file: String) -> [String] {
        let aliases = functionAliases(in: [text])
        var found: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
            for value in boxedValues(in: Substring(line)) {
                var value = value.trimmingCharacters(in: .whitespaces)
                while value.hasSuffix("?") { value.removeLast() }
                if value.hasPrefix("("), value.hasSuffix(")"), isFunctionType(String(value.dropFirst().dropLast())) {
                    value = String(value.dropFirst().dropLast())
                }
                if isFunctionType(value) || aliases.contains(value) { found.append("\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))") }
            }
        }
        return found
    }

    /// Whether `type` is a function type: its attributes aside, a parenthesised parameter list
    /// and an arrow (a generic type with a function among its arguments is not one).
    static func isFunctionType(_ type: String) -> Bool {
        var rest = Substring(type.trimmingCharacters(in: .whitespaces))
        while rest.hasPrefix("@"), let space = rest.firstIndex(of: " ") {
            rest = rest[space...].drop { $0 == " " }
        }
        return rest.hasPrefix("(") && rest.contains("->")
    }

    /// The generic arguments of the lock boxes named on `line`, with nested `<…>` kept whole
    /// and the `>` of `->` not taken for a closing bracket.
    static func boxedValues(in line: Substring) -> [String] {
        var values: [String] = []
        var rest = line
        while let start = rest.firstMatch(of: /\b(?:NIOLockedValueBox|Mutex)</) {
            var depth = 1
            var index = start.range.upperBound
            var previous: Character = "<"
            while index < rest.endIndex, depth > 0 {
                let character = rest[index]
                if character == "<" { depth += 1 }
                if character == ">", previous != "-" { depth -= 1 }
                previous = character
                if depth > 0 { index = rest.index(after: index) }
            }
            guard index < rest.endIndex else { break }
            values.append(String(rest[start.range.upperBound..<index]))
            rest = rest[rest.index(after: index)...]
        }
        return values
    }

    @Test func theRuleSeesABoxedFunction() {
        let text = """
        typealias Handler = @Sendable (Int) async throws -> Void
        typealias Machine = StateMachine<@Sendable () -> Void, Int>
        let e = NIOLockedValueBox<Machine>(Machine())
        let a = NIOLockedValueBox<Handler?>(nil)
        let b = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
        let c = NIOLockedValueBox<[String: Handler]>([:])
        let d = NIOLockedValueBox<Installed?>(nil)
        """
        #expect(Self.functionAliases(in: [text]) == ["Handler"])
        #expect(Self.boxedFunctions(in: text, file: "t.swift") == [
            "t.swift:4: let a = NIOLockedValueBox<Handler?>(nil)",
            "t.swift:5: let b = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)",
        ])
    }

    @Test func noBoxHoldsAFunctionAsItsWholeValue() throws {
        let sources = ModuleMapTests.sources
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 100, "the sources were not found at \(sources.path)")
        let texts = try files.map { (file: $0, text: try String(contentsOf: $0, encoding: .utf8)) }
        var found: [String] = []
        for (file, text) in texts {
            found += Self.boxedFunctions(in: text, file: String(file.path.dropFirst(sources.path.count + 1)))
        }
        #expect(found.isEmpty, "boxes holding a function as their whole value (wrap it in a struct):\n\(found.sorted().joined(separator: "\n"))")
    }
}
