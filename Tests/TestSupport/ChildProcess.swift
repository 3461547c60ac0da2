public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A finished child process: its exit status and what it wrote.
public struct ChildResult: Sendable {
    /// The exit status; 128 + the signal number when a signal ended it.
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Runs programs for the tests with posix_spawn and waitpid.
///
/// Not Foundation's `Process`: on Linux it learns that a child exited when a socket the child
/// inherited closes, and `tmux new-session` leaves a server behind that inherits it, so the
/// client's exit would never be seen. Standard input, output and error are files, not pipes, for
/// the same reason (a daemon holding a pipe open would keep its reader waiting).
public enum ChildProcess {
    /// Runs `executable` with `arguments`, `input` as standard input, and returns once it exited.
    /// Cancelling the waiting task kills the child, so a `withTimeout` around this cannot hang.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        input: String = "",
        environment: [String: String]? = nil
    ) async throws -> ChildResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sio-child-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stdin = directory.appendingPathComponent("stdin").path
        let stdout = directory.appendingPathComponent("stdout").path
        let stderr = directory.appendingPathComponent("stderr").path
        try Data(input.utf8).write(to: URL(fileURLWithPath: stdin))

        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let pid = try spawn(executable, [executable] + arguments, environment: environment, stdin: stdin, stdout: stdout, stderr: stderr)
        let status = await withTaskCancellationHandler {
            await waitForExit(pid)
        } onCancel: {
            _ = kill(pid, SIGKILL)
        }
        let out = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        return ChildResult(status: status, stdout: out, stderr: err)
    }

    /// The environment for `sio` children: this one, with HOME in a fresh temporary directory so
    /// that nothing reads or writes the real `~/.sio_history`.
    public static func isolatedEnvironment() throws -> (environment: [String: String], home: URL) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sio-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        return (environment, home)
    }

    public static func spawn(
        _ executable: String, _ argv: [String], environment: [String], stdin: String, stdout: String, stderr: String
    ) throws -> pid_t {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #if os(Linux)
        // Nothing else of the test process may leak into the child: `tmux new-session` leaves a
        // server daemon behind, and a listening or connected socket of a test running in
        // parallel that it inherited would stay open in it — a stopped server's port would keep
        // accepting, a cut connection would never close.
        // (glibc's `addclosefrom_np` is not visible to Swift: close what is open now; a
        // descriptor closed meanwhile is skipped by glibc.)
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        #endif

        // The test runner blocks and ignores signals on its threads; a child inherits both, and
        // tmux cannot see its panes exit without SIGCHLD. Start children with a clean slate.
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t?
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argvPointers = argv.map { strdup($0) } + [nil]
        let environmentPointers = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argvPointers { free(pointer) }
            for pointer in environmentPointers { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argvPointers, environmentPointers)
        guard result == 0 else {
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// waitpid on a thread of its own (it blocks); the exit status, or 128 + the signal.
    public static func waitForExit(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                let signal = status & 0x7F
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
        }
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
