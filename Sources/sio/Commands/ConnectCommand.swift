import ArgumentParser
import Dispatch
import SocketIO

/// `sio connect URL`: an interactive session with a server, for trying it by hand.
struct ConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "An interactive session: emit events, wait for acks, watch what the server sends.",
        discussion: """
        Commands: emit EVENT [JSON …], ack EVENT [JSON …], status, connect, disconnect, help, quit. \
        Each JSON value is one argument (strings in double quotes; objects may contain spaces). \
        Incoming events print as ← EVENT [args], acks as ↩ [items], connection changes as · lines. \
        In a terminal the prompt has line editing (arrows, home/end, ctrl-A/E/U/K/W, ctrl-C drops \
        the line, ctrl-D on an empty line quits) and history (up/down), saved to ~/.sio_history \
        unless --no-history. Without a terminal it reads one command per line, e.g. \
        printf 'ack echo "hi"\\nquit\\n' | sio connect URL
        """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: "Seconds an ack command waits for the reply (default 10).", transform: Seconds.parsePositive)
    var ackTimeout: Duration = .seconds(10)

    @Option(name: .long, help: "Where the prompt's history is kept (default ~/.sio_history).")
    var historyFile: String?

    @Flag(name: .long, help: "Keep no history file.")
    var noHistory = false

    @Flag(name: .long, help: "Also print each heartbeat ping.")
    var pings = false

    func run() async throws {
        try await reportingErrors {
            let (manager, socket) = try connection.makeSocket()
            let incoming = IncomingEvents(socket)  // before connecting: the first events are not missed
            try await connection.connect(socket, manager: manager)
            // Raw mode only now: a failure to connect leaves the terminal untouched.
            let interactive = Terminal.isInteractive && Terminal.enableRawMode()
            let console = ConsoleWriter(interactive: interactive)
            let subscriptions = SessionSubscriptions(manager: manager, socket: socket)
            console.print(lines: SessionOutput.banner(manager: manager, socket: socket))
            let watchers = SessionWatchers(
                incoming: incoming, subscriptions: subscriptions,
                manager: manager, socket: socket, console: console, pings: pings
            )

            let (inputs, continuation) = AsyncStream<SessionInput>.makeStream()
            var resize: (any DispatchSourceSignal)?
            if interactive {
                resize = Terminal.onResize { console.redraw() }
                InputReader.readBytes(into: continuation)
            } else {
                InputReader.readLines(into: continuation)
            }
            var session = InteractiveSession(
                manager: manager,
                socket: socket,
                console: console,
                ackTimeout: ackTimeout,
                history: interactive && !noHistory ? HistoryFile(path: historyFile ?? HistoryFile.defaultPath, limit: 1000) : nil
            )
            await session.run(inputs, continuation: continuation)
            await watchers.stop()
            resize?.cancel()
            Terminal.restore()
            await manager.close()
        }
    }
}
