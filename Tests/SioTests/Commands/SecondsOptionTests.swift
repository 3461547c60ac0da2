import Foundation
import SwitchboardTestSupport
import Testing

/// Every option that takes seconds reads them the same way: a finite number, 0 or more (above 0
/// for a timeout or a deadline). Any
/// other value is refused before the command runs, naming the option, exit 64 (`nan` and `1e30`
/// used to stop the process with a crash when converted).
@Suite struct SecondsOptionTests {
    @Test(arguments: [
        (["emit", "http://127.0.0.1:1", "ev", "--connect-timeout", "nan"], "--connect-timeout"),
        (["emit", "http://127.0.0.1:1", "ev", "--ack", "--timeout", "inf"], "--timeout"),
        (["listen", "http://127.0.0.1:1", "--connect-timeout", "1e400"], "--connect-timeout"),
        (["connect", "http://127.0.0.1:1", "--ack-timeout=-1"], "--ack-timeout"),
        (["bench", "--churn", "1", "--hold=-0.5"], "--hold"),
        (["soak", "--deadline", "soon"], "--deadline"),
    ])
    func anythingButSecondsIsRefused(arguments: [String], option: String) async throws {
        guard let sio = SioBinary.orSkip("anythingButSecondsIsRefused") else { return }
        let result = try await withTimeout(30, "sio \(arguments.joined(separator: " "))") {
            try await ChildProcess.run(sio, arguments)
        }
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("invalid for '\(option) "), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("is not a number of seconds, 0 or more"), "stderr: \(result.stderr)")
    }

    /// A timeout or a deadline of 0 would end the wait before it began, and fail as if the
    /// other side never answered (`operation has timed out`, `HANG: … within 0.0 s`): refused.
    @Test(arguments: [
        (["emit", "http://127.0.0.1:1", "ev", "--ack", "--timeout", "0"], "--timeout"),
        (["emit", "http://127.0.0.1:1", "ev", "--connect-timeout", "0.0001"], "--connect-timeout"),
        (["connect", "http://127.0.0.1:1", "--ack-timeout", "0"], "--ack-timeout"),
        (["soak", "--iterations", "1", "--deadline", "0"], "--deadline"),
    ])
    func aZeroTimeoutIsRefused(arguments: [String], option: String) async throws {
        guard let sio = SioBinary.orSkip("aZeroTimeoutIsRefused") else { return }
        let result = try await withTimeout(30, "sio \(arguments.joined(separator: " "))") {
            try await ChildProcess.run(sio, arguments)
        }
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("invalid for '\(option) "), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("is not a number of seconds above 0"), "stderr: \(result.stderr)")
    }

    /// A very long timeout is taken (as a year) and the command does its work: the ack arrives.
    @Test func aVeryLongTimeoutStillWorks() async throws {
        guard let sio = SioBinary.orSkip("aVeryLongTimeoutStillWorks") else { return }
        let result = try await EmbeddedDemoServer.with { _, url in
            try await withTimeout(30, "sio emit --ack --timeout 1e30") {
                try await ChildProcess.run(sio, ["emit", url.absoluteString, "ack", "1", "--ack", "--timeout", "1e30", "--connect-timeout", "1e30"])
            }
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[1]", "stdout: \(result.stdout)")
    }
}
