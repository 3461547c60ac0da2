import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// The process's threads, set up once the command line is parsed and before any task runs:
/// NIO's event-loop count for `sio serve --event-loops`; for the commands that are only a client
/// of a server in another process, NIO's event loops as Swift's global executor.
///
/// With the event loops as the global executor, a task that awaits an ack is resumed on the
/// event loop that read the ack (NIO keeps a job on the loop that enqueues it), and its next
/// emit is written from there: no hop to Swift's pool and back per round trip. Measured with
/// `sio bench URL` against `sio serve` (`Benchmarks/README.md`): a third of the client's
/// context switches. The price is NIO's own: a task that blocks its thread holds up that
/// loop's connections, so nothing in `sio` blocks on a task (the python comparison waits on a
/// thread of its own). A process that also serves (`serve`, `demo`, `soak`, `bench` without a
/// URL or with `--cluster`) keeps Swift's pool: there the server's work and the client's would
/// share the loops, and the failover channels measured a half more CPU per message.
/// `SIO_TASKS_ON_EVENT_LOOPS=0` keeps every command on Swift's pool.
enum ProcessThreads {
    /// The environment variable that turns the event loops as the global executor off (`0`).
    static let variable = "SIO_TASKS_ON_EVENT_LOOPS"

    static func prepare(for command: any ParsableCommand) {
        if let serve = command as? ServeCommand, let eventLoops = serve.eventLoops {
            // NIO takes the count only before its threads exist.
            NIOSingletons.groupLoopCountSuggestion = eventLoops
        }
        guard isClientOnly(command), ProcessInfo.processInfo.environment[variable] != "0" else { return }
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// Whether `command` runs no server in this process: it only connects to one elsewhere.
    static func isClientOnly(_ command: any ParsableCommand) -> Bool {
        switch command {
        case let bench as BenchCommand: bench.url != nil && bench.cluster == nil
        case is EmitCommand, is ListenCommand, is ConnectCommand: true
        default: false
        }
    }

    /// Where the calling task runs: `"NIO's event loops"` or `"Swift's pool"`, for the
    /// benchmarks' reports.
    static var taskThreads: String {
        MultiThreadedEventLoopGroup.currentEventLoop == nil ? "Swift's pool" : "NIO's event loops"
    }
}
