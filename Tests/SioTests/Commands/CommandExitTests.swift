import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// Every `sio` command that is meant to end does end, run as a user runs it: the built binary
/// in a child process, with a deadline on its exit, and the exit status asserted.
@Suite struct CommandExitTests {
    /// `serve --port 70000` listened on 4464 (the port wrapped): refused now, exit 64.
    @Test func aPortOutOfRangeIsRefused() async throws {
        guard let sio = SioBinary.orSkip("aPortOutOfRangeIsRefused") else { return }
        let result = try await withTimeout(30, "sio serve --port 70000") { try await ChildProcess.run(sio, ["serve", "--port", "70000"]) }
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("--port must be between 0 and 65535, not 70000"), "stderr: \(result.stderr)")
    }

    /// More event loops than the process can run is refused, exit 64; NIO trapped when it could
    /// not make the threads (or their descriptors).
    @Test func tooManyEventLoopsAreRefused() async throws {
        guard let sio = SioBinary.orSkip("tooManyEventLoopsAreRefused") else { return }
        let result = try await withTimeout(30, "sio serve --event-loops 100000") {
            try await ChildProcess.run(sio, ["serve", "--port", "0", "--event-loops", "100000"])
        }
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("is more than this process can run"), "stderr: \(result.stderr)")
    }

    /// A `--header` NIO cannot send (a non-ASCII name stopped the process with SIGILL) is
    /// refused in one line, exit 1, on each transport and each command that connects.
    @Test(arguments: [["emit", "URL", "echo", "1", "--ack"], ["listen", "URL"], ["emit", "URL", "echo", "--transport", "websocket"]])
    func aHeaderThatCannotBeSentIsRefused(_ command: [String]) async throws {
        guard let sio = SioBinary.orSkip("aHeaderThatCannotBeSentIsRefused") else { return }
        for (header, expected) in [("Überschrift:1", "is not an HTTP token"), ("X-A:a\u{1B}b", "has a control character")] {
            let arguments = command.map { $0 == "URL" ? "http://127.0.0.1:9" : $0 } + ["--header", header]
            let result = try await withTimeout(30, "sio \(arguments.joined(separator: " "))") {
                try await ChildProcess.run(sio, arguments)
            }
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("invalid header") && result.stderr.contains(expected), "stderr: \(result.stderr)")
        }
    }

    /// `bench` of a server that is not there fails at the first refused connection, exit 1
    /// (its clients reconnected for ever, printing nothing in a pipe).
    @Test func benchOfAnUnreachableServerFails() async throws {
        guard let sio = SioBinary.orSkip("benchOfAnUnreachableServerFails") else { return }
        let result = try await withTimeout(60, "sio bench of nothing exiting") {
            try await ChildProcess.run(sio, ["bench", "http://127.0.0.1:9", "--no-python", "--events", "10", "--acks", "1"])
        }
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("sio: "), "stderr: \(result.stderr)")
    }

    /// `bench --churn` whose clients do not make it fails with the first one's reason, exit 1;
    /// it printed a table of rounds with 0 connected and exited 0. A refused namespace too.
    @Test(arguments: ["http://127.0.0.1:9", "/chat"])
    func churnWhoseClientsFailFails(_ target: String) async throws {
        guard let sio = SioBinary.orSkip("churnWhoseClientsFailFails") else { return }
        let result = try await EmbeddedDemoServer.with { _, url in
            let address = target.hasPrefix("/") ? url.absoluteString + target : target
            return try await withTimeout(60, "sio bench --churn exiting") {
                try await ChildProcess.run(sio, ["bench", address, "--no-python", "--churn", "1", "--clients", "2"])
            }
        }
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("sio: round 1: 0 of 2 clients connected and got their ack; the first failure: "), "stderr: \(result.stderr)")
    }

    /// `listen --count 2` prints two events and exits 0 (it used to print them and hang).
    @Test func listenWithCountExits() async throws {
        guard let sio = SioBinary.orSkip("listenWithCountExits") else { return }
        let result = try await EmbeddedDemoServer.with(tickInterval: .milliseconds(20)) { _, url in
            try await withTimeout(30, "sio listen --count 2 exiting") {
                try await ChildProcess.run(sio, ["listen", url.absoluteString, "--namespace", "/ticker", "--count", "2"])
            }
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"event":"tick","args":["#) })
    }

    /// The URL's path is the namespace, as in socket.io's `io(url)`: `listen URL/ticker` prints
    /// ticks; the namespace given both ways and different is refused in one line, exit 1.
    @Test func listenTakesTheNamespaceFromTheURL() async throws {
        guard let sio = SioBinary.orSkip("listenTakesTheNamespaceFromTheURL") else { return }
        let (ticks, conflict) = try await EmbeddedDemoServer.with(tickInterval: .milliseconds(20)) { _, url in
            let ticker = url.absoluteString + "/ticker"
            let ticks = try await withTimeout(30, "sio listen URL/ticker --count 3 exiting") {
                try await ChildProcess.run(sio, ["listen", ticker, "--count", "3"])
            }
            let conflict = try await withTimeout(30, "sio listen URL/ticker --namespace /chat exiting") {
                try await ChildProcess.run(sio, ["listen", ticker, "--namespace", "/chat", "--count", "1"])
            }
            return (ticks, conflict)
        }
        #expect(ticks.status == 0, "stderr: \(ticks.stderr)")
        let lines = ticks.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"event":"tick","args":["#) })
        #expect(conflict.status == 1)
        #expect(conflict.stderr.contains("names the namespace /ticker but the namespace /chat was given too"), "stderr: \(conflict.stderr)")
    }

    /// `emit` without `--ack` delivers to a server that drops events read with the DISCONNECT
    /// (as socket.io's Node server does), and exits 0.
    @Test func emitWithoutAckDeliversBeforeItCloses() async throws {
        guard let sio = SioBinary.orSkip("emitWithoutAckDeliversBeforeItCloses") else { return }
        let server = try await NextTickServer.start()
        let result = try await withTimeout(30, "sio emit exiting") {
            try await ChildProcess.run(sio, ["emit", server.url.absoluteString, "broadcast", #""hi""#, "--transport", "websocket"])
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let records = try await withTimeout(10, "the server's records up to the DISCONNECT") {
            var seen: [NextTickServer.Record] = []
            for await record in server.records {
                seen.append(record)
                if case .disconnected = record { break }
            }
            return seen
        }
        #expect(records == [.dispatched(#"2["broadcast","hi"]"#), .disconnected("1")])
        await server.stop()
    }

    @Test func emitWithAckPrintsTheReplyAndExits() async throws {
        guard let sio = SioBinary.orSkip("emitWithAckPrintsTheReplyAndExits") else { return }
        let result = try await EmbeddedDemoServer.with { _, url in
            try await withTimeout(30, "sio emit --ack exiting") {
                try await ChildProcess.run(sio, ["emit", url.absoluteString, "ack", #"{"n":1}"#, "--ack"])
            }
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "[{\"n\":1}]\n")
    }

    @Test func benchExits() async throws {
        guard let sio = SioBinary.orSkip("benchExits") else { return }
        let result = try await withTimeout(120, "sio bench exiting") {
            try await ChildProcess.run(sio, ["bench", "--no-python", "--events", "200", "--acks", "20", "--json"])
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.hasPrefix("{"))
    }

    /// `sio bench URL`, a client only, runs its tasks on NIO's event loops (installed as Swift's
    /// global executor before the command runs), and on Swift's pool with
    /// `SIO_TASKS_ON_EVENT_LOOPS=0`; `sio bench` with its embedded server keeps Swift's pool. The
    /// bench reports where its workload ran.
    @Test(arguments: [(nil, true, "NIO's event loops"), ("0", true, "Swift's pool"), (nil, false, "Swift's pool")] as [(String?, Bool, String)])
    func benchTasksRunOnTheEventLoopsWhenOnlyAClient(setting: String?, outsideServer: Bool, expected: String) async throws {
        guard let sio = SioBinary.orSkip("benchTasksRunOnTheEventLoopsWhenOnlyAClient") else { return }
        var environment = ProcessInfo.processInfo.environment
        environment["SIO_TASKS_ON_EVENT_LOOPS"] = setting
        let workload = ["--no-python", "--events", "200", "--acks", "20", "--json"]
        let result = try await EmbeddedDemoServer.with { _, url in
            try await withTimeout(120, "sio bench exiting") { [environment] in
                try await ChildProcess.run(sio, ["bench"] + (outsideServer ? [url.absoluteString] : []) + workload, environment: environment)
            }
        }
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let report = try JSONValue(parsing: result.stdout)
        #expect(report["switchboard"]?["usage"]?["task_threads"]?.stringValue == expected, "\(result.stdout)")
    }

    /// The README's first command: `sio demo` plays every scene against its embedded server and
    /// exits 0, each chapter on the way.
    @Test func theDemoPlaysEverySceneAndExitsZero() async throws {
        guard let sio = SioBinary.orSkip("theDemoPlaysEverySceneAndExitsZero") else { return }
        let result = try await withTimeout(180, "sio demo exiting") {
            try await ChildProcess.run(sio, ["demo"])
        }
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        for chapter in ["Connect with auth", "Platform layer: leases, an outage, the keeper", "Failover: one channel over WebSocket and Socket.IO"] {
            #expect(result.stdout.contains("▸ \(chapter)"), "the chapter \(chapter)")
        }
        #expect(result.stdout.contains("All done"))
        #expect(!result.stderr.contains("✘"))
    }

    /// The output pipe closes (`| head -1`): the command dies of SIGPIPE like any Unix tool,
    /// quietly, instead of crashing with a backtrace.
    @Test(arguments: [
        ("listen URL --namespace /ticker", "head -1"),
        ("demo", "head -3"),
    ])
    func aClosedOutputPipeEndsTheCommandQuietly(command: String, reader: String) async throws {
        guard let sio = SioBinary.orSkip("aClosedOutputPipeEndsTheCommandQuietly") else { return }
        let result = try await EmbeddedDemoServer.with(tickInterval: .milliseconds(20)) { _, url in
            let line = "\"$SIO\" " + command.replacingOccurrences(of: "URL", with: url.absoluteString)
                + " | " + reader + " >/dev/null; echo \"status=${PIPESTATUS[0]}\""
            var variables = ProcessInfo.processInfo.environment
            variables["SIO"] = sio
            let environment = variables
            return try await withTimeout(60, "sio \(command) | \(reader) exiting") {
                try await ChildProcess.run("/bin/bash", ["-c", line], environment: environment)
            }
        }
        #expect(result.stdout == "status=141\n", "stderr: \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
        #expect(!result.stderr.contains("Broken pipe"))
    }

    /// Standard error's reader gone (`2>&1 >/dev/null | true`): the error line of a command that
    /// fails ends it with its status, or quietly as SIGPIPE, never with a crash. Foundation's
    /// `FileHandle.standardError.write` trapped on `EPIPE` there (status 132 or 133).
    @Test func aClosedErrorPipeEndsAFailingCommandQuietly() async throws {
        guard let sio = SioBinary.orSkip("aClosedErrorPipeEndsAFailingCommandQuietly") else { return }
        let line = "\"$SIO\" emit http://127.0.0.1:1 ev 2>&1 >/dev/null | true; echo \"status=${PIPESTATUS[0]}\""
        var variables = ProcessInfo.processInfo.environment
        variables["SIO"] = sio
        let environment = variables
        let result = try await withTimeout(60, "sio emit exiting") {
            try await ChildProcess.run("/bin/bash", ["-c", line], environment: environment)
        }
        #expect(["status=1\n", "status=141\n"].contains(result.stdout), "stderr: \(result.stderr)")
    }
}
