import Foundation
import Testing

/// The module map, drawn by the imports (README, "Modules"; DESIGN.md's layers): each module
/// imports only the modules of this package the map allows, the codecs import nothing but
/// Foundation and hold no lock, and the platform layer reaches the Socket.IO client and the
/// WebSocket client only from its adapters. Read from the sources themselves, so a new import
/// that breaks the map fails here.
@Suite struct ModuleMapTests {
    /// What one module may import of this package (`folders`: only from files under these
    /// folders of the module).
    struct Rule: Sendable {
        var allowed: Set<String>
        var onlyFrom: [String: [String]] = [:]
    }

    /// This package's modules (everything else imported is a dependency or the system).
    static let ours: Set<String> = [
        "SocketIOProtocol", "SwitchboardCore", "WebSocketClient", "SocketIO", "Switchboard", "SwitchboardTesting",
        "SocketIOServer", "SocketIOPostgres", "SwitchboardDemo", "SharingExample", "Harness", "SioInteractive",
    ]

    /// The map, as data: module → which of ours it may import.
    static let rules: [String: Rule] = [
        "SocketIOProtocol": Rule(allowed: []),
        "SwitchboardCore": Rule(allowed: []),
        "WebSocketClient": Rule(allowed: ["SwitchboardCore"]),
        "SocketIO": Rule(allowed: ["SocketIOProtocol", "SwitchboardCore", "WebSocketClient"]),
        "Switchboard": Rule(
            allowed: ["SocketIOProtocol", "SwitchboardCore", "SocketIO", "WebSocketClient"],
            onlyFrom: ["SocketIO": ["Adapters"], "WebSocketClient": ["Adapters"]]
        ),
        "SwitchboardTesting": Rule(allowed: ["Switchboard", "SocketIOProtocol", "SwitchboardCore"]),
        "SocketIOServer": Rule(allowed: ["SocketIOProtocol", "SwitchboardCore"]),
        "SocketIOPostgres": Rule(allowed: ["SocketIOServer", "SocketIOProtocol", "SwitchboardCore"]),
        "SwitchboardDemo": Rule(allowed: ["SocketIOServer", "SocketIOProtocol", "SwitchboardCore"]),
        "Harness": Rule(allowed: ["SwitchboardCore"]),
        "SioInteractive": Rule(allowed: ["SocketIOProtocol"]),
    ]

    /// Imports the codecs may have at all (Foundation only: no NIO, no logging, no locks).
    static let codecsMayImport: Set<String> = ["Foundation"]

    static var sources: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    /// `(module imported, file relative to its module folder)` for every import of `module`.
    static func imports(of module: String) throws -> [(module: String, file: String)] {
        let root = sources.appendingPathComponent(module)
        let pattern = /^\s*(?:@_exported\s+|@testable\s+)?(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)/
        var found: [(String, String)] = []
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let relative = String(file.path.dropFirst(root.path.count + 1))
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if let match = line.prefixMatch(of: pattern) { found.append((String(match.1), relative)) }
            }
        }
        return found
    }

    @Test("every module imports only what the map allows", arguments: rules.keys.sorted())
    func followsTheMap(_ module: String) throws {
        let rule = try #require(Self.rules[module])
        let imports = try Self.imports(of: module)
        #expect(!imports.isEmpty, "\(module): no sources found")
        for (imported, file) in imports where Self.ours.contains(imported) && imported != module {
            #expect(rule.allowed.contains(imported), "\(module)/\(file) imports \(imported), which the map forbids")
            if let folders = rule.onlyFrom[imported] {
                #expect(folders.contains { file.hasPrefix($0 + "/") }, "\(module)/\(file) imports \(imported) outside \(folders)")
            }
        }
    }

    @Test("the codecs are pure: Foundation only, no lock, nothing unchecked")
    func codecsArePure() throws {
        for (imported, file) in try Self.imports(of: "SocketIOProtocol") {
            #expect(Self.codecsMayImport.contains(imported), "SocketIOProtocol/\(file) imports \(imported)")
        }
        let root = Self.sources.appendingPathComponent("SocketIOProtocol")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for forbidden in ["NSLock", "@unchecked Sendable", "NIOLock", "DispatchQueue"] {
                #expect(!text.contains(forbidden), "\(file.lastPathComponent) has \(forbidden)")
            }
        }
    }

    @Test("the map covers every module under Sources/ (the tool and the examples aside)")
    func mapIsComplete() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { !$0.hasPrefix(".") }
        let mapped = Set(Self.rules.keys).union(["sio"])
        #expect(Set(folders) == mapped, "modules without a rule: \(Set(folders).subtracting(mapped)); rules without a module: \(mapped.subtracting(folders))")
    }
}
