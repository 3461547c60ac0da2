import SocketIO

/// The incoming events of a socket, collected from before it connects (so the first ones are not
/// missed) until ``SessionWatchers/stop()``.
struct IncomingEvents: Sendable {
    let stream: AsyncStream<SocketEvent>
    let continuation: AsyncStream<SocketEvent>.Continuation
    let listener: ListenerID

    init(_ socket: Socket) {
        let (stream, continuation) = AsyncStream<SocketEvent>.makeStream()
        self.stream = stream
        self.continuation = continuation
        self.listener = socket.onAny { continuation.yield($0) }
    }
}

/// The socket's status changes and the manager's events, subscribed to before the banner is
/// printed: an upgrade that finishes while it prints still gets its line (after it) rather
/// than none.
struct SessionSubscriptions: Sendable {
    /// The status when subscribing (what the banner will say, or an earlier one).
    let shown: SocketStatus
    let statusChanges: AsyncStream<SocketStatus>
    let managerEvents: AsyncStream<ManagerEvent>

    init(manager: Manager, socket: Socket) {
        shown = socket.status
        statusChanges = socket.statusChanges
        managerEvents = manager.events
    }
}

/// Prints what arrives while `sio connect` runs: events (`←`), status changes and manager events
/// (`·`), above the prompt.
struct SessionWatchers {
    private let socket: Socket
    private let manager: Manager
    private let incoming: IncomingEvents
    private let printer: Task<Void, Never>
    private let others: [Task<Void, Never>]

    init(
        incoming: IncomingEvents, subscriptions: SessionSubscriptions,
        manager: Manager, socket: Socket, console: ConsoleWriter, pings: Bool
    ) {
        self.socket = socket
        self.manager = manager
        self.incoming = incoming
        printer = Task {
            for await event in incoming.stream { console.print(SessionOutput.incoming(event)) }
        }
        let shown = subscriptions.shown
        let statusChanges = subscriptions.statusChanges
        let managerEvents = subscriptions.managerEvents
        others = [
            Task {
                var previous = shown
                for await status in statusChanges where status != previous {
                    previous = status
                    console.print(SessionOutput.status(status))
                }
            },
            Task {
                for await event in managerEvents {
                    if let line = SessionOutput.manager(event, pings: pings) { console.print(line) }
                }
            },
        ]
    }

    /// Prints every event that arrived before now, then stops watching. Status and manager
    /// events stop at once: the disconnect that quitting causes is not news.
    func stop() async {
        for task in others { task.cancel() }
        // Events already received wait on the handler executor; let them reach the stream.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            manager.runOnHandlerExecutor { continuation.resume() }
        }
        socket.off(incoming.listener)
        incoming.continuation.finish()
        await printer.value
    }
}
