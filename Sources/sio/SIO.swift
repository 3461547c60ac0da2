import ArgumentParser

@main
struct SIO: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sio",
        abstract: "Switchboard's Socket.IO command-line tool.",
        discussion: "Try a Socket.IO server by hand: emit an event, listen to what it sends, or connect for an interactive session.",
        subcommands: [DemoCommand.self, ServeCommand.self, EmitCommand.self, ListenCommand.self, ConnectCommand.self, BenchCommand.self, SoakCommand.self]
    )
}
