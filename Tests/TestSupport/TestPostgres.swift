public import Foundation

/// The PostgreSQL server of the tests that need one: `SWITCHBOARD_POSTGRES_URL`, which
/// `scripts/test` sets after `scripts/postgres start`, and `psql` and `scripts/postgres` to
/// drive it. Without the URL ``sharedURL(for:)`` prints a loud skip line and returns `nil` —
/// or throws when `SWITCHBOARD_REQUIRE_PEERS=1`.
public enum TestPostgres {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The package root, found from this file's path (`Tests/TestSupport/…`).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    public static var required: Bool { ProcessInfo.processInfo.environment["SWITCHBOARD_REQUIRE_PEERS"] == "1" }

    /// The shared server's URL, or `nil` after a loud skip line naming `test`.
    public static func sharedURL(for test: String = "") throws -> String? {
        if let url = ProcessInfo.processInfo.environment["SWITCHBOARD_POSTGRES_URL"], !url.isEmpty { return url }
        if required {
            throw Failure(description: "SWITCHBOARD_POSTGRES_URL not set and SWITCHBOARD_REQUIRE_PEERS=1; run scripts/test")
        }
        let name = test.isEmpty ? "" : " \(test)"
        FileHandle.standardError.write(Data("⚠️ SKIPPED\(name): PostgreSQL not running; run scripts/test\n".utf8))
        return nil
    }

    /// Runs `sql` with psql (no transaction around it); returns its unaligned output.
    @discardableResult
    public static func psql(_ url: String, _ sql: String) async throws -> String {
        try await run("/usr/bin/env", ["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-A", "-t", "-c", sql])
    }

    /// Runs `scripts/postgres <command>`, on the server whose state is in `state` (the shared
    /// one by default).
    @discardableResult
    public static func script(_ command: String, state: URL? = nil) async throws -> String {
        var environment = ProcessInfo.processInfo.environment
        if let state { environment["SWITCHBOARD_POSTGRES_STATE"] = state.path }
        return try await run(packageRoot.appendingPathComponent("scripts/postgres").path, [command], environment: environment)
    }

    /// Runs a program to its end (60 s at most, then it is killed); its standard output, or
    /// ``Failure`` with its standard error when it exits non-zero. ``ChildProcess`` runs it:
    /// its output goes to files and its exit is awaited off the cooperative pool, whose threads
    /// (two on a two-core machine) a blocking read would hold for as long as `initdb` runs.
    public static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> String {
        let result = try await withTimeout(60, "\(program) \(arguments)") {
            try await ChildProcess.run(program, arguments, environment: environment)
        }
        guard result.status == 0 else {
            throw Failure(description: "\(program) \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A PostgreSQL server of one test's own (`scripts/postgres` with a state folder of its own), for
/// tests that stop and start it: the shared server stays up for the tests running meanwhile.
public struct PrivatePostgres: Sendable {
    public let state: URL
    public let url: String

    /// Starts one; `nil` (after a loud skip line, or a failure with `SWITCHBOARD_REQUIRE_PEERS=1`)
    /// when no shared server runs either: PostgreSQL is then not set up here.
    public static func start(for test: String = "") async throws -> PrivatePostgres? {
        guard try TestPostgres.sharedURL(for: test) != nil else { return nil }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-pg-\(UUID().uuidString.prefix(8))")
        let output = try await TestPostgres.script("start", state: state)
        guard let url = output.split(separator: "\n").last.map(String.init), url.hasPrefix("postgres://") else {
            throw TestPostgres.Failure(description: "scripts/postgres start printed no URL: \(output)")
        }
        return PrivatePostgres(state: state, url: url)
    }

    /// Stops the server, keeping its data and port.
    public func pause() async throws { try await TestPostgres.script("pause", state: state) }
    /// Starts it again on the same port.
    public func resume() async throws { try await TestPostgres.script("resume", state: state) }
    /// Stops it and deletes its data.
    public func stop() async { _ = try? await TestPostgres.script("stop", state: state) }
}
