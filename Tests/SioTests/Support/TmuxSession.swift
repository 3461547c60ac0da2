import Foundation
import SwitchboardTestSupport

/// One program running in a detached tmux pane, 120×30, on a tmux server of its own (its own
/// socket, no configuration file), driven like a user would: keys in, screen out.
///
/// ```swift
/// guard let tmux = TmuxSession.findTmux(or: "my test") else { return }
/// let pane = try await TmuxSession.start(tmux: tmux, command: "sio connect http://127.0.0.1:3000")
/// defer { pane.kill() }
/// try await pane.type("status")
/// try await pane.press("Enter")
/// _ = try await pane.waitForScreen("the status") { $0.contains("connected:") }
/// ```
struct TmuxSession: Sendable {
    let tmux: String
    let socketName: String
    static let target = "sio"

    /// tmux from the usual places or PATH, or nil after printing a loud skip line.
    static func findTmux(or test: String) -> String? {
        var candidates = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/tmux")
        }
        if let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) { return found }
        let line = "⚠️ SKIPPED \(test): tmux not found (scripts/peers-setup installs it with apt-get when run as root)\n"
        FileHandle.standardError.write(Data(line.utf8))
        return nil
    }

    /// Starts `command` (a shell command line) in a new pane. The pane stays after the command
    /// exits, so its last output can be read.
    static func start(tmux: String, command: String, environment: [String: String]) async throws -> TmuxSession {
        let session = TmuxSession(tmux: tmux, socketName: "sio-test-\(UUID().uuidString.prefix(8))")
        var environment = environment
        environment["TERM"] = environment["TERM"] ?? "xterm-256color"
        environment.removeValue(forKey: "TMUX")  // not nested in the tmux the tests may run in
        try await session.tmuxCommand(
            ["new-session", "-d", "-s", target, "-x", "120", "-y", "30", command,
             ";", "set-option", "-t", target, "remain-on-exit", "on"],
            environment: environment)
        return session
    }

    /// Types `text` as is (no key names).
    func type(_ text: String) async throws {
        try await tmuxCommand(["send-keys", "-t", Self.target, "-l", text])
    }

    /// Presses keys by tmux's names: `Enter`, `Left`, `BSpace`, `Up`, `Home`, `C-a`, …
    func press(_ keys: String...) async throws {
        try await tmuxCommand(["send-keys", "-t", Self.target] + keys)
    }

    /// The pane's text, scrollback included, trailing spaces trimmed.
    func screen() async throws -> String {
        try await tmuxCommand(["capture-pane", "-p", "-S", "-", "-t", Self.target])
    }

    /// The visible rows only.
    func visibleRows() async throws -> [String] {
        try await tmuxCommand(["capture-pane", "-p", "-t", Self.target])
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The cursor's column and row in the visible pane, from 0.
    func cursor() async throws -> (x: Int, y: Int) {
        let text = try await tmuxCommand(["display-message", "-p", "-t", Self.target, "#{cursor_x} #{cursor_y}"])
        let numbers = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard numbers.count == 2 else { throw TmuxError("unexpected cursor answer: \(text)") }
        return (numbers[0], numbers[1])
    }

    /// Polls the screen until `predicate` holds, for at most `seconds`; fails with the screen.
    ///
    /// Polling is the only way to watch a terminal: nothing announces that a program finished
    /// drawing. Each poll is short; the bound only keeps a broken program from hanging the test.
    @discardableResult
    func waitForScreen(
        _ what: String, seconds: Double = 20, until predicate: @escaping @Sendable (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var last = ""
        while ContinuousClock.now < deadline {
            last = try await screen()
            if predicate(last) { return last }
            try await Task.sleep(for: .milliseconds(40))
        }
        throw TmuxError("timed out after \(seconds) s waiting for \(what); the screen:\n\(last)")
    }

    /// Stops the tmux server (and the program in it).
    func kill() async {
        _ = try? await tmuxCommand(["kill-server"])
    }

    @discardableResult
    private func tmuxCommand(_ arguments: [String], environment: [String: String]? = nil) async throws -> String {
        let result = try await withTimeout(10, "tmux \(arguments.first ?? "")") {
            try await ChildProcess.run(tmux, ["-L", socketName, "-f", "/dev/null"] + arguments, environment: environment)
        }
        guard result.status == 0 else {
            throw TmuxError("tmux \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }
}

struct TmuxError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
