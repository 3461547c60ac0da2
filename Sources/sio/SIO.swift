import ArgumentParser

@main
struct SIO: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sio",
        abstract: "Switchboard's Socket.IO command-line tool."
    )
}
