import Foundation
import Testing

/// Every public declaration in `Sources` has a doc comment (`///`, or a `/** … */` block)
/// directly above it, attributes aside. Read from the sources, so a public symbol added without
/// one fails here, naming its file and line.
@Suite struct PublicDocCommentTests {
    /// A line that declares something public or open (imports and extensions are not symbols).
    static var declaration: Regex<Substring> { /^\s*(?:@[A-Za-z_][A-Za-z0-9_.]*(?:\([^)]*\))?\s+)*(?:public|open)\s+(?!import\b|extension\b)/ }

    /// `file:line: declaration` for each public declaration of `text` without a doc comment.
    static func undocumented(in text: String, file: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let pattern = declaration
        var missing: [String] = []
        for (index, line) in lines.enumerated()
        where (line.contains("public") || line.contains("open")) && line.firstMatch(of: pattern) != nil {
            var above = index - 1
            while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
            let comment = above >= 0 ? lines[above].trimmingCharacters(in: .whitespaces) : ""
            if !comment.hasPrefix("///") && !comment.hasSuffix("*/") {
                missing.append("\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return missing
    }

    @Test func theRuleSeesAMissingComment() {
        let text = """
        /// Documented.
        public struct A {}

        @available(macOS 14, *)
        public struct B {}
        public import Foundation
        """
        #expect(Self.undocumented(in: text, file: "t.swift") == ["t.swift:5: public struct B {}"])
    }

    @Test func everyPublicDeclarationHasADocComment() throws {
        let sources = ModuleMapTests.sources
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(files.count > 100, "the sources were not found at \(sources.path)")
        var missing: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            missing += Self.undocumented(in: text, file: String(file.path.dropFirst(sources.path.count + 1)))
        }
        #expect(missing.isEmpty, "public declarations without a doc comment:\n\(missing.sorted().joined(separator: "\n"))")
    }
}
