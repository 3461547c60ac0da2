import Foundation
import SwitchboardTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process left running while the test talks to it (`sio serve`), its output in files.
final class BackgroundChild: Sendable {
    let pid: pid_t
    private let directory: URL

    /// Starts `executable`; stop it with ``signal(_:)`` and ``exit()``, then ``remove()``. Its
    /// standard input is empty, or `stdin` (a ``ScriptPipe``'s path, to write to it as it runs).
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sio-bg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data().write(to: directory.appendingPathComponent("stdin"))
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        pid = try ChildProcess.spawn(
            executable, [executable] + arguments, environment: environment,
            stdin: stdin ?? directory.appendingPathComponent("stdin").path,
            stdout: directory.appendingPathComponent("stdout").path,
            stderr: directory.appendingPathComponent("stderr").path
        )
    }

    var stdout: String { (try? String(contentsOf: directory.appendingPathComponent("stdout"), encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: directory.appendingPathComponent("stderr"), encoding: .utf8)) ?? "" }

    /// Waits until standard error (or standard output, with `onStdout`) has a line containing
    /// `text` (the child writes it once, when ready; there is no other channel to hear it on),
    /// and returns that line.
    func line(containing text: String, onStdout: Bool = false, within seconds: Double) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let output = onStdout ? stdout : stderr
            if let line = output.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            try await Task.sleep(for: .milliseconds(20))  // a poll of a file, not a guess at timing
        }
        throw ChildProcessError("no line containing \(text) within \(seconds) s; stdout: \(stdout) stderr: \(stderr)")
    }

    /// Waits until standard error has `count` lines containing `text`.
    func lines(containing text: String, count: Int, within seconds: Double) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if stderr.split(separator: "\n").count(where: { $0.contains(text) }) >= count { return }
            try await Task.sleep(for: .milliseconds(20))  // a poll of a file, not a guess at timing
        }
        throw ChildProcessError("fewer than \(count) lines containing \(text) within \(seconds) s; stderr: \(stderr)")
    }

    func signal(_ signal: Int32) {
        _ = kill(pid, signal)
    }

    /// Waits for the child to exit: its status, 128 + the signal when a signal ended it.
    /// Cancelling the wait kills the child.
    func exit() async -> Int32 {
        let pid = self.pid
        return await withTaskCancellationHandler {
            await ChildProcess.waitForExit(pid)
        } onCancel: {
            _ = kill(pid, SIGKILL)
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A named pipe a test writes a child's standard input through, line by line as the child runs.
/// Held open for reading and writing, so the child's open of it does not block, and the child
/// reads the end of its input when the pipe is closed.
final class ScriptPipe: Sendable {
    let path: String
    private let handle: FileHandle

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("sio-pipe-\(UUID().uuidString.prefix(8))").path
        guard mkfifo(path, 0o600) == 0 else { throw ChildProcessError("mkfifo \(path): errno \(errno)") }
        let descriptor = open(path, O_RDWR)
        guard descriptor >= 0 else { throw ChildProcessError("open \(path): errno \(errno)") }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    func write(_ line: String) throws {
        try handle.write(contentsOf: Data((line + "\n").utf8))
    }

    func close() {
        try? handle.close()
        unlink(path)
    }
}
