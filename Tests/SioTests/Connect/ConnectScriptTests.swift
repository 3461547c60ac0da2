import Foundation
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// `sio connect` without a terminal: one command per line from standard input.
@Suite struct ConnectScriptTests {
    @Test func aScriptRunsCommandsAndReportsBadLinesWithoutStopping() async throws {
        guard let sio = SioBinary.orSkip("aScriptRunsCommandsAndReportsBadLinesWithoutStopping") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let script = """
            emit echo "first"
            ack ack "hi" {"n": 1, "s": "two words"}
            frobnicate
            emit echo {"a":}
            emit echo [1, 2]
            ack echo 7
            status
            quit
            emit echo "never sent"

            """
        let result = try await EmbeddedDemoServer.with { _, url in
            try await withTimeout(30, "sio connect with a script") {
                try await ChildProcess.run(sio, ["connect", url.absoluteString], input: script, environment: environment)
            }
        }
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(lines.first?.hasPrefix("connected to http://127.0.0.1:") == true)
        #expect(lines.contains(#"→ ack ["hi",{"n":1,"s":"two words"}]"#))
        // The echo came before the ack's reply, so it is printed, even though quit follows soon.
        #expect(lines.contains(#"← echo ["first"]"#))
        #expect(lines.contains(#"↩ ["hi",{"n":1,"s":"two words"}]"#))
        #expect(lines.contains { $0.hasPrefix(#"error: unknown command "frobnicate""#) })
        #expect(lines.contains("error: emit: argument 1 is not valid JSON: unexpected character at column 16"))
        #expect(lines.contains("→ echo [[1,2]]"))
        #expect(lines.contains("↩ [7]"))
        #expect(lines.contains("connected:  yes"))
        #expect(lines.contains { $0.hasPrefix("engine:     Engine.IO v4") })
        #expect(!result.stdout.contains("never sent"))  // nothing after quit runs
        // No history file without a terminal.
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent(".sio_history").path))
    }

    @Test func theEndOfInputEndsTheSession() async throws {
        guard let sio = SioBinary.orSkip("theEndOfInputEndsTheSession") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await EmbeddedDemoServer.with { _, url in
            try await withTimeout(30, "sio connect with an empty script") {
                try await ChildProcess.run(sio, ["connect", url.absoluteString, "--transport", "websocket"], input: "ack ack 1", environment: environment)
            }
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("namespace /, Engine.IO v4, websocket;"))
        #expect(result.stdout.contains("↩ [1]"))  // the last line needs no newline
    }

    /// A `connect` line waits for one attempt: with the server gone, its failure is printed and
    /// the script goes on (it waited for good, and the script's `quit` never ran).
    @Test func aConnectLineWhileTheServerIsAwayEndsAtTheFirstFailure() async throws {
        guard let sio = SioBinary.orSkip("aConnectLineWhileTheServerIsAwayEndsAtTheFirstFailure") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let script = try ScriptPipe()
        defer { script.close() }
        let child = try await EmbeddedDemoServer.with { server, url in
            let child = try BackgroundChild(sio, ["connect", url.absoluteString], environment: environment, stdin: script.path)
            _ = try await child.line(containing: "connected to", onStdout: true, within: 30)
            await server.stop()  // gone: nothing listens on its port any more
            return child
        }
        var exited = false
        defer {
            if !exited { child.signal(SIGKILL) }  // a failed expectation leaves no process behind
            child.remove()
        }
        try script.write("disconnect")
        try script.write("connect")
        let failure = try await child.line(containing: "error: connect:", onStdout: true, within: 30)
        #expect(failure.contains("the socket keeps trying"))
        try script.write("quit")
        let status = try await withTimeout(30, "sio connect quits") { await child.exit() }
        exited = true
        #expect(status == 0, "stdout: \(child.stdout) stderr: \(child.stderr)")
    }

    @Test func aConnectionFailureIsOneLineAndANonZeroExit() async throws {
        guard let sio = SioBinary.orSkip("aConnectionFailureIsOneLineAndANonZeroExit") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        // Nothing listens on port 1 (privileged, unassigned on test machines): refused at once.
        let result = try await withTimeout(30, "sio connect to nowhere") {
            try await ChildProcess.run(
                sio, ["connect", "http://127.0.0.1:1", "--connect-timeout", "5"], input: "status\n", environment: environment)
        }
        #expect(result.status == 1)
        let errorLines = result.stderr.split(separator: "\n")
        #expect(errorLines.count == 1, "stderr: \(result.stderr)")
        #expect(errorLines.first?.hasPrefix("sio: ") == true)
        #expect(result.stdout.isEmpty)
    }

    @Test func aRefusedNamespaceIsOneLineAndANonZeroExit() async throws {
        guard let sio = SioBinary.orSkip("aRefusedNamespaceIsOneLineAndANonZeroExit") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await EmbeddedDemoServer.with { _, url in
            try await withTimeout(30, "sio connect to /chat without a token") {
                try await ChildProcess.run(
                    sio, ["connect", url.absoluteString, "--namespace", "/chat", "--auth", #"{"token":"wrong"}"#],
                    input: "status\n", environment: environment)
            }
        }
        #expect(result.status == 1)
        #expect(result.stderr == "sio: connect_error: unauthorized {\"reason\":\"bad token\"}\n")
    }
}
