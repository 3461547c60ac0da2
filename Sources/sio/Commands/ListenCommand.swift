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
            let ended = Task {
                for await change in status {
                    // A lost connection comes back on its own (reconnection); only the server's
                    // or our own disconnect ends the command.
                    guard case .disconnected(let reason) = change else { continue }
                    if !reason.isRecoverable { return reason }
                    FileHandle.standardError.write(Data("disconnected (\(reason)); reconnecting…\n".utf8))
                }
                return DisconnectReason.ioClientDisconnect
            }
            var seen = 0
            let printer = Task {
                for await event in events {
                    let line: JSONValue = ["event": .string(event.name), "args": .array(event.items)]
                    FileHandle.standardOutput.write(Data((line.jsonString + "\n").utf8))
                    seen += 1
                    if let count, seen >= count { return true }
                }
                return false
            }
            let finishedByCount = await withTaskGroup(of: Bool.self) { group in
                group.addTask { await printer.value }
                group.addTask { _ = await ended.value; return false }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if finishedByCount {
                await manager.close()
                return
            }
            let reason = await ended.value
            printer.cancel()
            await manager.close()
            throw CLIError("disconnected: \(reason)")
        }
    }
}
