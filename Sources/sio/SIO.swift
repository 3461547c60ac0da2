import ArgumentParser

@main
struct SIO: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sio",
        abstract: "Switchboard's Socket.IO command-line tool.",
        discussion: """
        Try a Socket.IO server by hand: emit an event, listen to what it sends, or connect for an interactive session.

        The commands that only connect to a server elsewhere (emit, listen, connect, bench URL) run \
        Swift's tasks on NIO's event loops (the fewest thread hops: an awaited ack resumes on the \
        thread that read it); SIO_TASKS_ON_EVENT_LOOPS=0 in the environment keeps them on Swift's \
        own pool, where the commands that run a server keep them always.
        """,
        subcommands: [DemoCommand.self, ServeCommand.self, EmitCommand.self, ListenCommand.self, ConnectCommand.self, BenchCommand.self, SoakCommand.self]
    )

    /// As ArgumentParser's `main`, with one step between parsing and running: the process's
    /// threads are set up for the command (``ProcessThreads``) before any task runs.
    static func main() async {
        do {
            var command = try parseAsRoot()
            ProcessThreads.prepare(for: command)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
