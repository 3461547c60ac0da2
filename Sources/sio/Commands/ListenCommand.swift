import ArgumentParser
import Foundation
import SocketIO

/// `sio listen URL`: print every incoming event as one JSON line.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print every incoming event as {\"event\":…,\"args\":[…]} (binary as {\"base64\":…})."
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "Exit after this many events.")
    var count: Int?

    func run() async throws {
        try await reportingErrors {
            if let count, count < 1 { throw CLIError("--count must be at least 1") }
            let (manager, socket) = try connection.makeSocket()
            let events = socket.allEvents()
            let status = socket.statusChanges
            try await connection.connect(socket, manager: manager)
            // Both loops are children of one group, so whichever ends first cancels the other
            // (iterating an `AsyncStream` ends when its task is cancelled). An unstructured task
            // awaited from a child would not hear that cancellation, and the command would hang.
            let outcome = await withTaskGroup(of: ListenOutcome.self) { group in
                group.addTask {
                    for await change in status {
                        // A lost connection comes back on its own (reconnection); only the
                        // server's or our own disconnect ends the command.
                        guard case .disconnected(let reason) = change else { continue }
                        if !reason.isRecoverable { return .disconnected(reason) }
                        StandardOutput.errorLine("disconnected (\(reason)); reconnecting…")
                    }
                    return .cancelled
                }
                group.addTask { [count] in
                    var seen = 0
                    for await event in events {
                        let line: JSONValue = ["event": .string(event.name), "args": .array(event.items)]
                        StandardOutput.line(line.jsonString)
                        seen += 1
                        if let count, seen >= count { return .counted }
                    }
                    return .cancelled
                }
                let first = await group.next() ?? .cancelled
                group.cancelAll()
                return first
            }
            await manager.close()
            guard case .disconnected(let reason) = outcome else { return }
            throw CLIError("disconnected: \(reason)")
        }
    }
}

private enum ListenOutcome: Sendable {
    /// `--count` events were printed.
    case counted
    /// The server's or the app's disconnect ended the session.
    case disconnected(DisconnectReason)
    /// The command was interrupted.
    case cancelled
}
