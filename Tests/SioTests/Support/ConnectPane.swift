import Foundation
import SocketIOServer
import SwitchboardTestSupport

/// `sio connect` against the embedded demo server, in a tmux pane.
struct ConnectPane: Sendable {
    let pane: TmuxSession
    let server: SocketIOServer
    /// The history file the session was given.
    let historyFile: URL

    /// Runs `body` with a pane running `sio connect URL arguments…` (then, once sio exits, the
    /// shell prints `exit status N` and runs `after`, a shell command line), already showing its
    /// prompt. Skips loudly (returns
    /// without calling `body`) when tmux or the sio binary is missing.
    static func with(
        _ test: String,
        arguments: [String] = [],
        after: String = "",
        _ body: @escaping @Sendable (ConnectPane) async throws -> Void
    ) async throws {
        guard let tmux = TmuxSession.findTmux(or: test), let sio = SioBinary.orSkip(test) else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let historyFile = home.appendingPathComponent("history")
        try await EmbeddedDemoServer.with { server, url in
            let words = [sio, "connect", url.absoluteString, "--history-file", historyFile.path] + arguments
            var command = words.map(shellQuoted).joined(separator: " ")
            // The shell that ran sio reports its status: tmux's own `pane_dead_status` is
            // sometimes never set (tmux 3.3 can leave the exited child unreaped).
            command += #"; echo "exit status $?""#
            if !after.isEmpty { command += "; " + after }
            let pane = try await TmuxSession.start(tmux: tmux, command: command, environment: environment)
            do {
                let connect = ConnectPane(pane: pane, server: server, historyFile: historyFile)
                try await connect.waitForPrompt("")
                // The session settles first: an upgrade line printed during the test would land
                // between the lines a test expects to be adjacent. (An upgrade done before the
                // banner prints no line: the banner names the transport.)
                try await pane.waitForScreen("the session on WebSocket") { screen in
                    screen.contains("· upgraded to websocket") || screen.contains(", websocket; type help")
                }
                try await body(connect)
                await pane.kill()
            } catch {
                await pane.kill()
                throw error
            }
        }
    }

    /// Waits until the last non-empty row is the prompt with `input` typed.
    func waitForPrompt(_ input: String) async throws {
        let expected = ("sio> " + input).trimmingTrailingSpaces
        try await pane.waitForScreen("the prompt line \"\(expected)\"") { screen in
            Self.lastRow(of: screen) == expected
        }
    }

    /// Types `line` and presses Enter.
    func enter(_ line: String) async throws {
        try await pane.type(line)
        try await pane.press("Enter")
    }

    /// Waits until sio exited; its exit status, as the shell printed it.
    func waitForExit() async throws -> Int {
        let screen = try await pane.waitForScreen("sio's exit status") { $0.contains("exit status ") }
        let line = screen.split(separator: "\n").last { $0.hasPrefix("exit status ") }
        guard let line, let status = Int(line.dropFirst("exit status ".count)) else {
            throw TmuxError("no exit status on the screen:\n\(screen)")
        }
        return status
    }

    /// Waits until a row is exactly `line`.
    func waitForLine(_ line: String) async throws {
        try await pane.waitForScreen("the line \"\(line)\"") { screen in
            screen.split(separator: "\n").contains { $0 == line }
        }
    }

    static func lastRow(of screen: String) -> String? {
        screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }.map(String.init)
    }

    /// The visible row the prompt is on, and its text.
    func promptRow() async throws -> (index: Int, text: String) {
        let rows = try await pane.visibleRows()
        guard let index = rows.lastIndex(where: { !$0.allSatisfy(\.isWhitespace) }) else {
            throw TmuxError("the pane is empty")
        }
        return (index, rows[index])
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
