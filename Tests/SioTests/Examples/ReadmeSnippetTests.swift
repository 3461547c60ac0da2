import Foundation
import Testing

/// Every Swift snippet of the README and of the DocC articles is a region of a program in
/// `Examples/`, verbatim, and every region is shown somewhere: a snippet whose API changed fails
/// to compile there, and `ExamplesTests` runs the programs.
@Suite struct ReadmeSnippetTests {
    static let root = SioBinary.packageRoot

    /// The README and every DocC article, by path.
    static func documents() throws -> [(path: String, text: String)] {
        var paths = ["README.md"]
        let sources = root.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalog = sources.appendingPathComponent(module).appendingPathComponent("\(module).docc")
            let articles = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
            paths += articles.filter { $0.hasSuffix(".md") }.sorted().map { "Sources/\(module)/\(module).docc/\($0)" }
        }
        return try paths.map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// A document's swift blocks but the README's installation manifest (which
    /// `scripts/check-install` builds) and the blocks marked as not compiled here (the SwiftUI
    /// view, Apple platforms only).
    static func blocks(of text: String) -> [String] {
        Snippets.swiftBlocks(inMarkdown: text).filter {
            !$0.hasPrefix("// swift-tools-version") && !$0.hasPrefix(Snippets.notCompiledHere)
        }
    }

    @Test func onlyTheSwiftUIViewIsNotCompiled() throws {
        let marked = try Self.documents().flatMap { document in
            Snippets.swiftBlocks(inMarkdown: document.text).filter { $0.hasPrefix(Snippets.notCompiledHere) }.map { (document.path, $0) }
        }
        #expect(marked.count == 1, "\(marked.map(\.0))")
        #expect(marked.allSatisfy { $0.1.contains("import SwiftUI") })
    }

    @Test func everySwiftBlockOfTheDocumentationIsAnExampleRegion() throws {
        let regions = try Snippets.exampleRegions(root: Self.root)
        let documents = try Self.documents()
        #expect(documents.count >= 4, "README and the DocC articles: \(documents.map(\.path))")
        var count = 0
        for document in documents {
            for block in Self.blocks(of: document.text) {
                count += 1
                #expect(regions.contains { $0.text == block }, "\(document.path): block not found verbatim in any Examples/*/main.swift region:\n\(block)")
            }
        }
        #expect(count >= 13, "the documentation's swift blocks went missing")
    }

    @Test func everyExampleRegionIsShownInTheDocumentation() throws {
        let shown = Set(try Self.documents().flatMap { Self.blocks(of: $0.text) })
        let regions = try Snippets.exampleRegions(root: Self.root)
        #expect(regions.count >= 13)
        for region in regions {
            #expect(shown.contains(region.text), "\(region.file) region \(region.name) is in no document (or differs)")
        }
    }

    @Test func theMarkersAreRead() {
        let example = """
            // snippet: one
            import Foundation
            let shown = 1
            let hidden = 2  // example-only
            // end snippet
            """
        let regions = Snippets.regions(inExample: example, file: "x")
        #expect(regions.map(\.name) == ["one"])
        #expect(regions.first?.text == "import Foundation\nlet shown = 1")
        #expect(Snippets.swiftBlocks(inMarkdown: "a\n```swift\nlet x = 1  \n```\n```sh\nls\n```") == ["let x = 1"])
    }
}
