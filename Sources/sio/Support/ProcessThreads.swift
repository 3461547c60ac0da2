import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// The process's threads, set up once the command line is parsed and before any task runs:
/// NIO's event-loop count for `sio serve --event-loops`; for every other command (the clients,
/// the bench, the demo), NIO's event loops as Swift's global executor.
///
/// With the event loops as the global executor, a task that awaits an ack is resumed on the
/// event loop that read the ack (NIO keeps a job on the loop that enqueues it), and its next
/// emit is written from there: no hop to Swift's pool and back per round trip. Measured with
/// `sio bench` against `sio serve` (`Benchmarks/README.md`): about a third of the client's
/// context switches. The price is NIO's own: a task that blocks its thread holds up that
/// loop's connections, so nothing in `sio` blocks on a task (the python comparison waits on a
/// thread of its own). `SIO_TASKS_ON_EVENT_LOOPS=0` keeps tasks on Swift's pool.
enum ProcessThreads {
    /// The environment variable that turns the event loops as the global executor off (`0`).
    static let variable = "SIO_TASKS_ON_EVENT_LOOPS"

    static func prepare(for command: any ParsableCommand) {
        if let serve = command as? ServeCommand {
            // NIO takes the count only before its threads exist.
            if let eventLoops = serve.eventLoops { NIOSingletons.groupLoopCountSuggestion = eventLoops }
            // Not for the server alone: its handlers run on the loops already, and its other
            // tasks (the cluster's, long-polling's) use the second core better on Swift's pool.
            return
        }
        guard ProcessInfo.processInfo.environment[variable] != "0" else { return }
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// Where the calling task runs: `"NIO's event loops"` or `"Swift's pool"`, for the
    /// benchmarks' reports.
    static var taskThreads: String {
        MultiThreadedEventLoopGroup.currentEventLoop == nil ? "Swift's pool" : "NIO's event loops"
    }
}
