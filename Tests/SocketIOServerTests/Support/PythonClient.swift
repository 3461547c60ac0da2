import SwitchboardTestSupport
import Foundation

/// Runs Tests/Peers/client_v5.py (python-socketio 5.x's client, an independent implementation)
/// — or client_v3.py (python-socketio 4.x's, Engine.IO v3) — against a server and collects its
/// one-JSON-line-per-scenario results.
///
/// The interpreter comes from `SWITCHBOARD_PY5` / `SWITCHBOARD_PY4` (set by `scripts/test`), else
/// `<package root>/.venv/bin/python` / `.venv-v3/bin/python`. Without one, ``run(url:transport:line:only:)``
/// prints a loud skip line and returns `nil` — or throws when `SWITCHBOARD_REQUIRE_PEERS=1`.
enum PythonClient {
    /// Which python-socketio line.
    enum Line: String, Sendable {
        case v5 = "5.x"
        case v4 = "4.x"

        var script: String { self == .v5 ? "Tests/Peers/client_v5.py" : "Tests/Peers/client_v3.py" }
        var variable: String { self == .v5 ? "SWITCHBOARD_PY5" : "SWITCHBOARD_PY4" }
        var venv: String { self == .v5 ? ".venv/bin/python" : ".venv-v3/bin/python" }
    }

    struct Result: Decodable, Sendable {
        let scenario: String
        let ok: Bool
        let detail: String
        let transport: String
        let seconds: Double?
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The package root, found from this file's path (`Tests/SocketIOServerTests/Support/…`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static let scenarios = [
        "connect", "auth-accepted", "auth-rejected", "echo", "acks", "binary", "rooms-broadcast", "server-disconnect",
    ]

    static func interpreter(_ line: Line = .v5) -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[line.variable], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let fallback = packageRoot.appendingPathComponent(line.venv).path
        return FileManager.default.isExecutableFile(atPath: fallback) ? fallback : nil
    }

    /// The results, the script's stderr; `nil` when python-socketio is not installed.
    static func run(
        url: URL, transport: String, line: Line = .v5, only: [String] = [], timeout: Double = 180
    ) async throws -> (results: [Result], log: String)? {
        guard let python = interpreter(line) else {
            if ProcessInfo.processInfo.environment["SWITCHBOARD_REQUIRE_PEERS"] == "1" {
                throw Failure(description: "python-socketio \(line.rawValue) not installed and SWITCHBOARD_REQUIRE_PEERS=1; run scripts/test")
            }
            FileHandle.standardError.write(Data("⚠️ SKIPPED: python-socketio \(line.rawValue) client not installed; run scripts/test\n".utf8))
            return nil
        }
        let logURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-client-\(line.rawValue)-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", line.script, url.absoluteString, "--transport", transport] + (only.isEmpty ? [] : ["--only"] + only)
        process.currentDirectoryURL = packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = log
        let finished = ProcessExit()
        process.terminationHandler = { _ in finished.signal() }
        // The client's work is its start-up (imports) and a few short scenarios: it holds a
        // start-up permit for its whole run (see PeerLaunchGate), then its timeout starts.
        let stdout = try await PeerLaunchGate.shared.whileStarting {
            try process.run()
            try? log.close()
            let stdout = readAll(output.fileHandleForReading)
            do {
                try await withTimeout(timeout, "\(line.script) over \(transport)") { await finished.wait() }
            } catch {
                process.terminate()
                throw error
            }
            return stdout
        }
        let decoder = JSONDecoder()
        let results = try String(decoding: await stdout.value, as: UTF8.self)
            .split(separator: "\n")
            .map { try decoder.decode(Result.self, from: Data($0.utf8)) }
        let logText = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return (results, logText)
    }

    /// Reads a pipe to its end on a thread of its own (never the cooperative pool).
    private static func readAll(_ handle: FileHandle) -> Task<Data, Never> {
        let box = ProcessExit()
        let data = DataBox()
        Thread.detachNewThread {
            data.value = handle.readDataToEndOfFile()
            box.signal()
        }
        return Task {
            await box.wait()
            return data.value
        }
    }
}

/// `@unchecked Sendable`: written once by the reading thread before it signals.
private final class DataBox: @unchecked Sendable {
    var value = Data()
}

/// A one-time signal from a callback thread to an async waiter.
///
/// `@unchecked Sendable`: all mutable state is guarded by `lock`.
final class ProcessExit: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func signal() {
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            done = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in woken { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock {
                if done { return true }
                waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
