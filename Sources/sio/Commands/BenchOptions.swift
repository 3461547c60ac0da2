import ArgumentParser

/// `sio bench`: the python-socketio client run beside ours.
struct PythonComparisonOptions: ParsableArguments {
    @Option(name: .long, help: "The python with python-socketio 5.x for the comparison (default: .venv/bin/python).")
    var python: String?

    @Flag(name: .long, help: "Skip the python-socketio comparison.")
    var noPython = false
}

/// `sio bench --cluster` and `--across`: how much is sent, and whether sessions are kept.
struct ClusterBenchOptions: ParsableArguments {
    @Option(name: .long, help: "With --cluster or --across: broadcasts for the throughput figure.")
    var broadcasts: Int = 10_000

    @Option(name: .long, help: "With --cluster or --across: probes timed one at a time for the latency figures.")
    var probes: Int = 500

    @Flag(name: .long, help: "With --cluster: connection state recovery on every server (over PostgreSQL: sessions and a journal kept in the database).")
    var recovery = false
}

/// `sio bench --churn`: rounds of clients that come and go.
struct ChurnBenchOptions: ParsableArguments {
    @Option(name: .long, help: "Connection churn: this many rounds of --clients clients that connect, make one ack, hold --hold seconds and close; per round, CPU and memory of this process (and of --server-pid).")
    var churn: Int?

    @Option(name: .long, help: "With --churn: seconds each client stays connected (default 0).", transform: Seconds.parse)
    var hold: Duration = .zero

    @Option(name: .long, help: "With --churn: the server's pid (sio serve in another process), to report its CPU and memory per round.")
    var serverPid: Int32?

    @Option(name: .long, help: "With --churn: connect through a platform Connection of this kind instead of the Socket.IO client (which takes --transport): websocket (/ws), channel/ws, channel/sio (failover channels pinned to each transport), socket.io.")
    var churnKind: ConnectionBench.Kind?
}

extension ConnectionBench.Kind: ExpressibleByArgument {}

/// `sio bench`: where the client's handlers and workload run.
struct ClientThreadOptions: ParsableArguments {
    @Flag(name: .long, help: "Run the client's handlers inline on the network event loop (HandlerExecutor.inline) instead of on a serial queue.")
    var inlineHandlers = false

    @Flag(name: .long, help: "Run the workload on the manager's event loop (withTaskExecutorPreference(manager.taskExecutor)); what sio's tasks do anyway unless SIO_TASKS_ON_EVENT_LOOPS=0.")
    var onEventLoop = false
}
