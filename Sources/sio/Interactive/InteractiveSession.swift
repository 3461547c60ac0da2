import SioInteractive
import SocketIO

/// The loop of `sio connect`: reads keys (or lines from a script), runs commands, and keeps the
/// prompt drawn while messages arrive.
///
/// Everything it reacts to comes in one ``SessionInput`` stream, handled one at a time, so the
/// editor state needs no lock. A command that waits (`ack`, `connect`) runs in a task that posts
/// `.commandFinished` when done; meanwhile keys queue up (ctrl-C stops the wait) and the prompt
/// is hidden, as in a shell.
struct InteractiveSession {
    let manager: Manager
    let socket: Socket
    let console: ConsoleWriter
    let ackTimeout: Duration
    var history: HistoryFile?

    private enum Queued {
        case key(Key)
        case line(String)
        case end
    }

    private enum Step {
        case next
        case quit
    }

    private var editor = LineEditorState()
    private var decoder = KeyDecoder()
    private var queue: [Queued] = []
    private var running: Task<Void, Never>?
    private var promptShown = false
    private var finished: AsyncStream<SessionInput>.Continuation?

    init(manager: Manager, socket: Socket, console: ConsoleWriter, ackTimeout: Duration, history: HistoryFile?) {
        self.manager = manager
        self.socket = socket
        self.console = console
        self.ackTimeout = ackTimeout
        self.history = history
    }

    /// Runs until `quit`, ctrl-D, or the end of standard input.
    mutating func run(_ inputs: AsyncStream<SessionInput>, continuation: AsyncStream<SessionInput>.Continuation) async {
        finished = continuation
        loadHistory()
        _ = processQueue()  // draws the first prompt
        for await input in inputs {
            switch input {
            case .bytes(let bytes):
                for key in decoder.decode(bytes) {
                    if let running, key == .control("c") {
                        running.cancel()
                    } else {
                        queue.append(.key(key))
                    }
                }
            case .line(let line):
                queue.append(.line(line))
            case .endOfInput:
                queue.append(.end)
            case .commandFinished:
                running = nil
            }
            if running == nil, processQueue() == .quit { break }
        }
        console.finish()
    }

    /// Handles queued input until it runs out or a command starts waiting.
    private mutating func processQueue() -> Step {
        var redraw = false
        while running == nil, !queue.isEmpty {
            switch queue.removeFirst() {
            case .key(let key):
                let lastEntry = editor.history.last
                switch editor.handle(key) {
                case .none:
                    break
                case .redraw:
                    redraw = true
                case .submit(let line):
                    console.submit(line)
                    promptShown = false
                    if editor.history.last == line, lastEntry != line { save(line) }
                    if execute(line) == .quit { return .quit }
                case .cancel:
                    console.cancelLine()
                    promptShown = false
                case .endOfInput:
                    return .quit
                case .clearScreen:
                    console.clearScreen()
                    promptShown = false
                }
            case .line(let line):
                if execute(line) == .quit { return .quit }
            case .end:
                return .quit
            }
        }
        if running == nil, console.interactive, redraw || !promptShown {
            console.showPrompt(editor)
            promptShown = true
        }
        return .next
    }

    /// Runs one line; errors are printed, never thrown: the session goes on.
    private mutating func execute(_ line: String) -> Step {
        let parsed: InteractiveCommand?
        do {
            parsed = try CommandParser.parse(line)
        } catch {
            console.print(SessionOutput.error(error.description))
            return .next
        }
        guard let command = parsed else { return .next }
        switch command {
        case .emit(let event, let items):
            do throws(SocketIOError) {
                try socket.emit(event, items: items)
                console.print(SessionOutput.sent(event, items) + waitingNote())
            } catch {
                console.print(SessionOutput.error("emit: \(error)"))
            }
        case .ack(let event, let items):
            guard !SocketPacket.reservedEventNames.contains(event) else {
                console.print(SessionOutput.error("ack: \(SocketIOError.reservedEventName(event))"))
                return .next
            }
            console.print(SessionOutput.sent(event, items) + waitingNote())
            let waited = Self.describe(ackTimeout)
            start { [socket, console, ackTimeout] in
                do throws(SocketIOError) {
                    let reply = try await socket.emitWithAck(event, items: items, timeout: ackTimeout)
                    console.print(SessionOutput.ackReply(reply))
                } catch {
                    if Task.isCancelled {
                        console.print(SessionOutput.error("ack: stopped waiting (ctrl-C)"))
                    } else if error == .ackTimeout {
                        console.print(SessionOutput.error("ack: no reply within \(waited)"))
                    } else {
                        console.print(SessionOutput.error("ack: \(error)"))
                    }
                }
            }
        case .status:
            console.print(lines: SessionOutput.report(manager: manager, socket: socket))
        case .connect:
            if let id = socket.id {
                console.print("· already connected as \(id)")
                return .next
            }
            start { [socket, manager, console] in
                do {
                    try await socket.connectFirstAttempt(on: manager)
                } catch {
                    let message = Task.isCancelled ? "stopped waiting (ctrl-C)" : "\(error)"
                    console.print(SessionOutput.error("connect: \(message); the socket keeps trying (disconnect stops it)"))
                }
            }
        case .disconnect:
            socket.disconnect()
        case .help:
            console.print(lines: InteractiveCommand.help(ackTimeout: Self.describe(ackTimeout)))
        case .quit:
            return .quit
        }
        return .next
    }

    /// Said after what was sent while the socket is away: the socket buffers it.
    private func waitingNote() -> String {
        socket.connected ? "" : "  (not connected: buffered until the socket connects)"
    }

    /// `10 s`, `2.5 s`.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard attoseconds != 0 else { return "\(seconds) s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }

    private mutating func start(_ work: @escaping @Sendable () async -> Void) {
        let finished = self.finished
        running = Task {
            await work()
            finished?.yield(.commandFinished)
        }
    }

    private mutating func loadHistory() {
        guard let file = history else { return }
        do {
            editor = LineEditorState(history: try file.load(), historyLimit: file.limit)
        } catch {
            console.print(SessionOutput.error("history: cannot read \(file.path) (\(error)); going on without it"))
            history = nil
        }
    }

    private mutating func save(_ line: String) {
        guard let file = history else { return }
        do {
            try file.append(line)
        } catch {
            console.print(SessionOutput.error("history: cannot save to \(file.path) (\(error)); going on without saving"))
            history = nil
        }
    }
}
