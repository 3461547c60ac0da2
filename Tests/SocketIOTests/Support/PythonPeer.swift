import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An independent Socket.IO server for interop tests: python-socketio 5.x (`.v5`, Engine.IO v4 /
/// Socket.IO v5) or python-socketio 4.6.1 (`.v3`, Engine.IO v3 / Socket.IO v4), running
/// `Tests/Peers/server_v5.py` / `server_v3.py` in a child process on a free loopback port.
///
/// ```swift
/// guard let peer = try await PythonPeer.start(.v5, arguments: ["--ping-interval", "0.5"]) else { return }
/// defer { peer.stop() }
/// // connect a client to peer.url; on failure print(peer.log())
/// ```
///
/// The interpreter comes from `SWITCHBOARD_PY5` / `SWITCHBOARD_PY4` (set by `scripts/test`), else
/// from `<package root>/.venv` / `.venv-v3` (made by `scripts/peers-setup`). Without one, `start`
/// prints a loud skip line and returns `nil` — or throws when `SWITCHBOARD_REQUIRE_PEERS=1`.
/// The server's stderr (every packet it sends or receives) goes to ``logPath``.
///
/// `@unchecked Sendable`: the only mutable state, `stopped`, is guarded by `lock`; `Process` is
/// only asked to signal and reap, which it does safely from any thread.
final class PythonPeer: @unchecked Sendable {
    enum Kind: String, Sendable, CustomStringConvertible {
        /// python-socketio 5.x: Engine.IO v4, Socket.IO v5.
        case v5
        /// python-socketio 4.6.1 + python-engineio 3.14.2: Engine.IO v3, Socket.IO v4.
        case v3
        /// proxy.py, a forward HTTP proxy (plain requests and `CONNECT` tunnels), in the v5 venv.
        case proxy

        var description: String {
            switch self {
            case .v5: "python-socketio 5.x"
            case .v3: "python-socketio 4.6.1"
            case .proxy: "proxy.py"
            }
        }

        var environmentVariable: String {
            switch self {
            case .v5, .proxy: "SWITCHBOARD_PY5"
            case .v3: "SWITCHBOARD_PY4"
            }
        }

        var virtualEnvironment: String {
            switch self {
            case .v5, .proxy: ".venv"
            case .v3: ".venv-v3"
            }
        }

        var script: String {
            switch self {
            case .v5: "Tests/Peers/server_v5.py"
            case .v3: "Tests/Peers/server_v3.py"
            case .proxy: "Tests/Peers/proxy_peer.py"
            }
        }
    }

    let kind: Kind
    let port: Int
    /// The peer's stderr: its log, one line per Engine.IO packet.
    let logPath: String
    var url: String { "http://127.0.0.1:\(port)" }

    private let process: Process
    /// Signalled by the process's termination handler.
    private let exited: ExitSignal
    /// Kept open for the peer's lifetime: the peer runs with `--watch-stdin` and exits when this
    /// pipe closes, so a crashed test run leaves no server behind.
    private let stdinPipe: Pipe
    private let stdoutPipe: Pipe
    /// The log as it arrives, for ``waitForLog(containing:within:)`` to await.
    private let logText: PeerLog
    private let lock = NSLock()
    private var stopped = false

    /// The package root, found from this file's path (`Tests/SocketIOTests/Support/PythonPeer.swift`).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // SocketIOTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// Whether a missing interpreter is a failure (`SWITCHBOARD_REQUIRE_PEERS=1`, as `scripts/test` sets).
    static var peersRequired: Bool {
        ProcessInfo.processInfo.environment["SWITCHBOARD_REQUIRE_PEERS"] == "1"
    }

    /// The interpreter to run `kind` with, or nil when it is not installed.
    static func interpreter(for kind: Kind) -> String? {
        let fileManager = FileManager.default
        if let path = ProcessInfo.processInfo.environment[kind.environmentVariable], !path.isEmpty {
            return fileManager.isExecutableFile(atPath: path) ? path : nil
        }
        let fallback = packageRoot
            .appendingPathComponent(kind.virtualEnvironment)
            .appendingPathComponent("bin/python").path
        return fileManager.isExecutableFile(atPath: fallback) ? fallback : nil
    }

    /// Starts a peer and waits (at most `timeout` seconds) for its `READY <port>` line.
    ///
    /// - Parameters:
    ///   - port: 0 for a free port; a fixed one to restart a server where a client expects it.
    ///   - arguments: extra flags for the server, e.g. `["--ping-interval", "0.5", "--ping-timeout", "0.5"]`
    ///     (server_v3.py also takes `--ping-grace`).
    /// - Returns: nil when the interpreter is missing and peers are not required (the test should
    ///   return early: it is skipped, loudly).
    static func start(
        _ kind: Kind,
        port: Int = 0,
        arguments: [String] = [],
        timeout: Double = 30
    ) async throws -> PythonPeer? {
        guard let python = interpreter(for: kind) else {
            let configured = ProcessInfo.processInfo.environment[kind.environmentVariable]
            let looked = configured.map { "\(kind.environmentVariable)=\($0)" }
                ?? packageRoot.appendingPathComponent(kind.virtualEnvironment).path
            if peersRequired {
                throw PythonPeerError.interpreterMissing(kind: kind, looked: looked)
            }
            let line = "⚠️ SKIPPED: \(kind) peer not installed; run scripts/test (looked for \(looked))\n"
            FileHandle.standardError.write(Data(line.utf8))
            return nil
        }
        // One start-up per core at a time (see PeerLaunchGate); the READY timeout starts after.
        return try await PeerLaunchGate.shared.whileStarting {
            try await launch(kind, python: python, port: port, arguments: arguments, timeout: timeout)
        }
    }

    /// Launches the server and waits for its `READY <port>` line.
    private static func launch(
        _ kind: Kind,
        python: String,
        port: Int,
        arguments: [String],
        timeout: Double
    ) async throws -> PythonPeer {
        let logURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-peer-\(kind.rawValue)-\(UUID().uuidString.prefix(8)).log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw PythonPeerError.launchFailed(kind: kind, reason: "cannot create \(logURL.path)")
        }
        let logHandle = try FileHandle(forWritingTo: logURL)

        let process = Process()
        let stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", kind.script, "--port", String(port), "--watch-stdin"] + arguments
        process.currentDirectoryURL = packageRoot
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let exited = ExitSignal()
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            try? logHandle.close()
            throw PythonPeerError.launchFailed(kind: kind, reason: "\(python): \(error)")
        }
        // The child's stderr is read as it comes: written to the log file and handed to the
        // waiters of `waitForLog`.
        let logText = PeerLog()
        startReadingStderr(stderrPipe.fileHandleForReading, into: logText, file: logHandle)

        let ready = ReadySignal()
        startReadingStdout(stdoutPipe.fileHandleForReading, into: ready)
        let readyPort: Int
        do {
            // At the deadline the wait is cancelled and `withTimeout` throws `TestTimeout`.
            readyPort = try await withTimeout(timeout, "the READY line") {
                try await withTaskCancellationHandler {
                    try await ready.wait()
                } onCancel: {
                    ready.resolve(.failure(CancellationError()))
                }
            }
        } catch {
            let peer = PythonPeer(kind: kind, port: port, logPath: logURL.path, process: process,
                                  exited: exited, stdinPipe: stdinPipe, stdoutPipe: stdoutPipe, logText: logText)
            await peer.stopped()
            if error is CancellationError { throw error }
            throw PythonPeerError.notReady(kind: kind, reason: "\(error)", logPath: logURL.path,
                                           logTail: peer.log(lastLines: 40))
        }
        return PythonPeer(kind: kind, port: readyPort, logPath: logURL.path, process: process, exited: exited,
                          stdinPipe: stdinPipe, stdoutPipe: stdoutPipe, logText: logText)
    }

    private init(kind: Kind, port: Int, logPath: String, process: Process, exited: ExitSignal, stdinPipe: Pipe, stdoutPipe: Pipe, logText: PeerLog) {
        self.logText = logText
        self.kind = kind
        self.port = port
        self.logPath = logPath
        self.process = process
        self.exited = exited
        self.stdinPipe = stdinPipe
        self.stdoutPipe = stdoutPipe
    }

    deinit {
        stop()
    }

    /// Stops the server gracefully (SIGTERM: it closes every Engine.IO session, then exits) and
    /// waits for it; SIGKILL after 5 s. Idempotent.
    func stop() {
        guard markStopped() else { return }
        if process.isRunning {
            process.terminate()
            waitForExit(seconds: 5)
        }
        if process.isRunning {
            _ = kill(process.processIdentifier, SIGKILL)
            waitForExit(seconds: 5)
        }
        try? stdinPipe.fileHandleForWriting.close()
    }

    /// ``stop()`` on a thread of its own: it blocks while the process exits, and a blocked
    /// cooperative thread (there are as many as cores) would stall every other test in parallel.
    func stopped() async {
        await Self.offThePool { self.stop() }
    }

    /// ``killAbruptly()`` on a thread of its own (see ``stopped()``).
    func killedAbruptly() async {
        await Self.offThePool { self.killAbruptly() }
    }

    private static func offThePool(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                work()
                continuation.resume()
            }.start()
        }
    }

    /// Kills the server abruptly (SIGKILL): connections drop without any close packet or frame.
    func killAbruptly() {
        guard markStopped() else { return }
        if process.isRunning {
            _ = kill(process.processIdentifier, SIGKILL)
            waitForExit(seconds: 5)
        }
        try? stdinPipe.fileHandleForWriting.close()
    }

    /// The peer's log so far (for a failing test to print).
    func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no log at \(logPath))"
    }

    /// Waits until the log holds every one of `lines`, at most `seconds`: woken by each chunk
    /// the peer writes to its stderr. Fails with the log's tail.
    func waitForLog(containing lines: [String], within seconds: Double = 30) async throws {
        do {
            try await withTimeout(seconds, "the \(kind) log") {
                try await self.logText.wait { log in lines.allSatisfy(log.contains) }
            }
        } catch {
            Issue.record("the \(kind) log lacks one of \(lines): \(log(lastLines: 20))")
            throw error
        }
    }

    /// The last `lastLines` lines of the log.
    func log(lastLines: Int) -> String {
        log().split(separator: "\n", omittingEmptySubsequences: false)
            .suffix(lastLines)
            .joined(separator: "\n")
    }

    private func markStopped() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopped { return false }
        stopped = true
        return true
    }

    /// Waits at most `seconds` for the termination handler rather than `waitUntilExit()`, so a
    /// stuck child cannot block the caller forever.
    private func waitForExit(seconds: Double) {
        if exited.wait(seconds: seconds) {
            process.waitUntilExit()  // already reaped: returns at once
        }
    }
}

enum PythonPeerError: Error, CustomStringConvertible {
    /// No interpreter for the peer while `SWITCHBOARD_REQUIRE_PEERS=1`: run `scripts/test`
    /// (or `scripts/peers-setup`).
    case interpreterMissing(kind: PythonPeer.Kind, looked: String)
    /// The interpreter could not be launched.
    case launchFailed(kind: PythonPeer.Kind, reason: String)
    /// The server did not print `READY <port>` in time, or exited first.
    case notReady(kind: PythonPeer.Kind, reason: String, logPath: String, logTail: String)

    var description: String {
        switch self {
        case .interpreterMissing(let kind, let looked):
            "\(kind) peer not installed (looked for \(looked)) and SWITCHBOARD_REQUIRE_PEERS=1; run scripts/test"
        case .launchFailed(let kind, let reason):
            "\(kind) peer failed to launch: \(reason)"
        case .notReady(let kind, let reason, let logPath, let logTail):
            "\(kind) peer not ready: \(reason); log \(logPath):\n\(logTail)"
        }
    }
}

private enum ReadyFailure: Error, CustomStringConvertible {
    case exitedBeforeReady

    var description: String {
        switch self {
        case .exitedBeforeReady: "the server closed stdout (exited) before printing READY"
        }
    }
}

/// Reads the child's stdout on a thread of its own (blocking reads, never on the cooperative
/// pool) until EOF, resolving `ready` with the port of the first `READY <port>` line.
private func startReadingStdout(_ handle: FileHandle, into ready: ReadySignal) {
    Thread.detachNewThread {
        let descriptor = handle.fileDescriptor
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.hasPrefix("READY "), let port = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) {
                    ready.resolve(.success(port))
                }
            }
        }
        ready.resolve(.failure(ReadyFailure.exitedBeforeReady))
        withExtendedLifetime(handle) {}
    }
}

/// Set once when the process has exited; waited for with a bound.
private final class ExitSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var exited = false

    func signal() {
        condition.lock()
        exited = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the process exited within `seconds`.
    func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !exited, condition.wait(until: deadline) {}
        return exited
    }
}

/// A one-shot result, resolved once by whichever comes first: READY, EOF, cancellation (also at the timeout).
private final class ReadySignal: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Int, any Error>?
    private var continuation: CheckedContinuation<Int, any Error>?

    func resolve(_ outcome: Result<Int, any Error>) {
        lock.lock()
        guard result == nil else {
            lock.unlock()
            return
        }
        result = outcome
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(with: outcome)
    }

    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(with: result)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}

/// The peer's stderr as it arrives, with the tasks waiting for something to appear in it.
private final class PeerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    private var waiters: [UUID: (condition: (String) -> Bool, continuation: CheckedContinuation<Void, any Error>)] = [:]

    /// Appends a chunk and resumes the waiters it satisfies.
    func append(_ chunk: String) {
        lock.lock()
        text += chunk
        let log = text
        let ready = waiters.filter { $0.value.condition(log) }
        for id in ready.keys { waiters.removeValue(forKey: id) }
        lock.unlock()
        for waiter in ready.values { waiter.continuation.resume() }
    }

    /// Returns once `condition` holds for the log (at once if it does already); throws
    /// `CancellationError` when the waiting task is cancelled.
    func wait(until condition: @escaping (String) -> Bool) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if condition(text) || Task.isCancelled {
                    lock.unlock()
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                    return
                }
                waiters[id] = (condition, continuation)
                lock.unlock()
            }
        } onCancel: {
            lock.lock()
            let waiter = waiters.removeValue(forKey: id)
            lock.unlock()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}

/// Reads the child's stderr on a thread of its own until EOF: each chunk goes to the log file
/// (for a failing test to print) and to `log`'s waiters.
private func startReadingStderr(_ handle: FileHandle, into log: PeerLog, file: FileHandle) {
    Thread.detachNewThread {
        let descriptor = handle.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            let chunk = Data(buffer[0..<count])
            file.write(chunk)
            log.append(String(decoding: chunk, as: UTF8.self))
        }
        try? file.close()
        withExtendedLifetime(handle) {}
    }
}
