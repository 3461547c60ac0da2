import Foundation
import Logging
import SocketIOServer
import SwitchboardTestSupport

@testable import SocketIOPostgres

/// The PostgreSQL server of the database tests: `SWITCHBOARD_POSTGRES_URL`, which
/// `scripts/test` sets after `scripts/postgres start`. Without it ``url()`` prints a loud skip
/// line and returns `nil` — or throws when `SWITCHBOARD_REQUIRE_PEERS=1`.
enum TestDatabase {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The package root, found from this file's path (`Tests/SocketIOPostgresTests/Support/…`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static var required: Bool { ProcessInfo.processInfo.environment["SWITCHBOARD_REQUIRE_PEERS"] == "1" }

    static func url() throws -> String? {
        if let url = ProcessInfo.processInfo.environment["SWITCHBOARD_POSTGRES_URL"], !url.isEmpty { return url }
        if required {
            throw Failure(description: "SWITCHBOARD_POSTGRES_URL not set and SWITCHBOARD_REQUIRE_PEERS=1; run scripts/test")
        }
        FileHandle.standardError.write(Data("⚠️ SKIPPED: PostgreSQL not running; run scripts/test\n".utf8))
        return nil
    }

    /// A name no other test uses: tables and channel prefixes keep the tests apart.
    static func unique(_ prefix: String) -> String {
        "\(prefix)_\(UInt32.random(in: 0 ... .max))"
    }

    static let logger: Logger = {
        var logger = Logger(label: "SocketIOPostgresTests")
        logger.logLevel = .error
        return logger
    }()

    /// Options with a table and channel prefix of the test's own, and reconnections in 50–100 ms.
    static func options(_ name: String) -> PostgresClusterTransport.Options {
        PostgresClusterTransport.Options(
            channelPrefix: "\(name)-io",
            tableName: name,
            reconnectDelay: .milliseconds(50) ... .milliseconds(100)
        )
    }

    /// Runs `sql` with psql (no transaction around it); returns its unaligned output.
    @discardableResult
    static func psql(_ url: String, _ sql: String) async throws -> String {
        try await run("/usr/bin/env", ["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-A", "-t", "-c", sql])
    }

    /// Runs `scripts/postgres <command>`.
    @discardableResult
    static func script(_ command: String) async throws -> String {
        try await run(packageRoot.appendingPathComponent("scripts/postgres").path, [command])
    }

    /// Runs a program to its end (60 s at most); its standard output, or ``Failure`` with its
    /// standard error when it exits non-zero.
    private static func run(_ program: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let (exited, exit) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { exit.yield($0.terminationStatus) }
        try process.run()
        // Read before waiting: a full pipe would block the program.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let status = try await exited.first(1, within: 60, "\(program) \(arguments)").first, status == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed: \(problems)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The messages a subscription delivers, as a stream to await.
struct Inbox {
    let messages: AsyncStream<ClusterMessage>
    let deliver: @Sendable (ClusterMessage) -> Void

    init() {
        let (messages, continuation) = AsyncStream.makeStream(of: ClusterMessage.self)
        self.messages = messages
        deliver = { continuation.yield($0) }
    }
}

extension TestDatabase {
    /// A loopback port nothing listens on (just released).
    static func freePort() async throws -> Int {
        let text = try await run("/usr/bin/env", [
            "python3", "-c",
            "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()",
        ])
        guard let port = Int(text) else { throw Failure(description: "no free port: \(text)") }
        return port
    }
}
