import Foundation

/// The prompt's history across sessions: one line per entry, appended as lines are entered
/// (so a crash loses nothing), read back at start (the last `limit` lines). When the file grows
/// past twice the limit it is rewritten with the last `limit` lines.
struct HistoryFile: Sendable {
    let path: String
    let limit: Int

    /// `~/.sio_history`, with `~` from `$HOME` as shells do (Foundation alone would ask the
    /// password database and ignore `HOME`).
    static var defaultPath: String {
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".sio_history").path
    }

    /// The saved lines, oldest first; empty when there is no file yet.
    func load() throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let kept = Array(lines.suffix(limit))
        if lines.count > 2 * limit {
            try (kept.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        return kept
    }

    /// Adds `line` at the end of the file, creating it (readable by the owner only) if needed.
    func append(_ line: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CLIError("cannot create \(path)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CLIError("cannot write \(path)") }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((line + "\n").utf8))
    }
}
