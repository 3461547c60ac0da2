import ArgumentParser
import Foundation
import SocketIO

/// `sio emit URL EVENT [JSON …]`: connect, emit once, optionally print the ack, disconnect.
struct EmitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emit",
        abstract: "Emit one event; with --ack, print the ack's items as one JSON array."
    )

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The event name.")
    var event: String

    @Argument(help: "Event arguments: JSON values, or bare words sent as strings.")
    var items: [String] = []

    @Flag(name: .long, help: "Ask for an acknowledgement and print its items.")
    var ack = false

    @Option(name: .long, help: "Seconds to wait for the ack (default 10).", transform: Seconds.parsePositive)
    var timeout: Duration = .seconds(10)

    func run() async throws {
        try await reportingErrors {
            let values = try items.map(CLIJSON.item)
            let (manager, socket) = try connection.makeSocket()
            try await connection.connect(socket, manager: manager)
            defer { _ = manager }
            do {
                if ack {
                    let reply = try await socket.emitWithAck(
                        event, items: values, timeout: timeout)
                    StandardOutput.line(JSONValue.array(reply).jsonString)
                } else {
                    try socket.emit(event, items: values)
                }
            } catch {
                await manager.close()
                throw CLIError("\(error)")
            }
            await manager.close()
        }
    }
}
