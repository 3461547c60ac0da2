import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// `sio serve` and `sio bench` group their options by what they set, and each `--help` shows
/// the groups as sections; an option read from a group still does its work.
@Suite struct OptionGroupTests {
    /// The lines of `help` from the section titled `title` to the next blank line.
    static func section(_ title: String, in help: String) -> String? {
        guard let start = help.range(of: "\n\(title):\n") else { return nil }
        let rest = help[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n\n")?.lowerBound ?? rest.endIndex)])
    }

    @Test(arguments: [
        ("serve", "ENGINE.IO", ["--ping-interval", "--ping-timeout", "--allow-eio3", "--max-sessions", "--max-sessions-per-address"]),
        ("serve", "CLUSTER", ["--cluster", "--cluster-heartbeat-interval", "--cluster-heartbeat-timeout"]),
        ("bench", "CLUSTER", ["--broadcasts", "--probes", "--recovery"]),
        ("bench", "CHURN", ["--churn", "--hold", "--server-pid", "--churn-kind"]),
        ("bench", "THE CLIENT'S THREADS", ["--inline-handlers", "--on-event-loop"]),
        ("bench", "PYTHON-SOCKETIO", ["--python", "--no-python"]),
    ])
    func helpShowsEachGroup(command: String, title: String, options: [String]) async throws {
        guard let sio = SioBinary.orSkip("helpShowsEachGroup") else { return }
        let result = try await withTimeout(30, "sio \(command) --help") {
            try await ChildProcess.run(sio, [command, "--help"])
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let section = try #require(Self.section(title, in: result.stdout), "no \(title) section in:\n\(result.stdout)")
        for option in options {
            #expect(section.contains("  \(option) ") || section.contains("  \(option)\n"), "\(option) not under \(title):\n\(section)")
        }
    }

    /// `--churn` and `--clients`, read from their group, make the rounds: each round connects
    /// every client, and the JSON has one row per round.
    /// The same through each kind of platform connection (`--churn-kind`), and through the
    /// Socket.IO client over each `--transport`.
    @Test(arguments: [[], ["--transport", "polling"], ["--transport", "auto"],
                      ["--churn-kind", "websocket"], ["--churn-kind", "channel/ws"], ["--churn-kind", "channel/sio"], ["--churn-kind", "socket.io"]])
    func churnRunsItsRounds(_ kind: [String]) async throws {
        guard let sio = SioBinary.orSkip("churnRunsItsRounds") else { return }
        let result = try await withTimeout(120, "sio bench --churn 3 \(kind.joined(separator: " ")) exiting") {
            try await ChildProcess.run(sio, ["bench", "--churn", "3", "--clients", "4", "--hold", "0", "--json", "--no-python"] + kind)
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let rounds = try #require(try JSONValue(parsing: result.stdout).arrayValue, "\(result.stdout)")
        #expect(rounds.map { $0["round"]?.intValue } == [1, 2, 3])
        #expect(rounds.allSatisfy { $0["connected"]?.intValue == 4 }, "\(result.stdout)")
    }

}
