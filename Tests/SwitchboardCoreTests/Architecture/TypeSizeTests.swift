import Foundation
import Testing

/// Sizes that fit a head: no type of `Sources/` above 450 lines summed over its declaration and
/// its extensions, none with more than 12 lock sections (`withLockedValue`, `withLock`,
/// `.lock()`); an owner with more is an owner whose state is not in its machine yet (STYLE.md).
/// The same count as `tools/type-sizes.py --max-lines 450 --max-locks 12`: a top-level
/// `class`/`struct`/`enum`/`actor`/`extension` runs from its line to the next line that starts
/// with `}`.
@Suite struct TypeSizeTests {
    static let maxLines = 450
    static let maxLockSections = 12

    struct Size: Sendable, CustomStringConvertible {
        var lines = 0
        var lockSections = 0
        var files: Set<String> = []
        var description: String { "\(lines) lines, \(lockSections) lock sections in \(files.sorted())" }
    }

    static func sizes() throws -> [String: Size] {
        let root = ModuleMapTests.sources
        let declaration = /^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|open|nonisolated|indirect)\s+)*(class|struct|actor|enum|extension)\s+([A-Za-z_][\w.]*)/
        let lock = /withLockedValue|withLock\b|\.lock\(\)/
        var sizes: [String: Size] = [:]
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0
            while index < lines.count {
                let line = lines[index]
                guard let match = try declaration.prefixMatch(in: line),
                      !line.trimmingCharacters(in: .whitespaces).hasSuffix("}") else {
                    index += 1
                    continue
                }
                let name = match.output.1 == "extension"
                    ? String(match.output.2.split(separator: ".").first ?? match.output.2)
                    : String(match.output.2)
                var end = index + 1
                while end < lines.count && !lines[end].hasPrefix("}") { end += 1 }
                let body = lines[index...min(end, lines.count - 1)]
                sizes[name, default: Size()].lines += body.count
                sizes[name, default: Size()].lockSections += body.reduce(0) { $0 + $1.matches(of: lock).count }
                sizes[name, default: Size()].files.insert(file.lastPathComponent)
                index = end + 1
            }
        }
        return sizes
    }

    @Test("no type above 450 lines or 12 lock sections")
    func typesFitTheLimits() throws {
        let sizes = try Self.sizes()
        #expect(sizes["Socket"] != nil && sizes["Manager"] != nil, "the count found the sources")
        let over = sizes.filter { $0.value.lines > Self.maxLines || $0.value.lockSections > Self.maxLockSections }
        #expect(over.isEmpty, "over the limits: \(over.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })")
    }
}
