import Foundation

/// The code blocks of the documentation and the marked regions of `Examples/`, for the test that
/// keeps them in step.
///
/// A region is the lines between `// snippet: NAME` and `// end snippet` in an example's
/// `main.swift`, without the lines that end in `// example-only` (the scaffolding a reader does
/// not need, such as the client the server example talks to itself with).
enum Snippets {
    struct Region: Sendable {
        let file: String
        let name: String
        let text: String
    }

    static let exampleOnly = "// example-only"
    /// The first line of a documentation block that is not compiled on this machine (SwiftUI).
    static let notCompiledHere = "// Apple platforms only: not compiled here"

    /// The ```` ```swift ```` blocks of a Markdown file, in order.
    static func swiftBlocks(inMarkdown text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```swift" { current = [] }
            } else if line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(normalized(current ?? []))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The marked regions of one example file.
    static func regions(inExample text: String, file: String) -> [Region] {
        var regions: [Region] = []
        var open: (name: String, lines: [Substring])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet: ") {
                open = (String(trimmed.dropFirst("// snippet: ".count)), [])
            } else if trimmed == "// end snippet", let region = open {
                regions.append(Region(file: file, name: region.name, text: normalized(region.lines)))
                open = nil
            } else if open != nil, !line.hasSuffix(exampleOnly) {
                open?.lines.append(line)
            }
        }
        return regions
    }

    /// Lines without trailing spaces, and without leading or trailing empty lines.
    static func normalized(_ lines: [Substring]) -> String {
        var lines = lines.map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// Every region of every `Examples/*/main.swift`.
    static func exampleRegions(root: URL) throws -> [Region] {
        let examples = root.appendingPathComponent("Examples")
        var regions: [Region] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: examples.path).sorted() {
            let main = examples.appendingPathComponent(name).appendingPathComponent("main.swift")
            guard let text = try? String(contentsOf: main, encoding: .utf8) else { continue }
            regions += Self.regions(inExample: text, file: "Examples/\(name)/main.swift")
        }
        return regions
    }
}
