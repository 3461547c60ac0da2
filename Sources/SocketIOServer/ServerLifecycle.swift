/// Where a ``SocketIOServer`` is in its life, as a value the server keeps under its lock: one
/// transition per call; what it returns is done after the lock is released.
///
/// `idle → starting → running → stopped`. A ``SocketIOServer/stop()`` while the server is
/// starting wins: the start gives up before it listens (or stops listening at once, if it got
/// that far) and throws ``SocketIOServerError/stoppedWhileStarting``, and the stop returns once
/// it has. `Stopper` is a `stop()` waiting for that (a continuation in production), `Running`
/// what a listening server holds; both are opaque here, so the rules are tested without a server.
struct ServerLifecycle<Stopper, Running> {
    enum State {
        /// Not started, or its start failed. Next: `starting`, `stopped`.
        case idle
        /// `start()` is joining the cluster and binding. `stoppers` is `nil` until a `stop()`
        /// comes, then the stops waiting for the start to give up. Next: `running`, `idle` (the
        /// start failed), `stopped` (a stop came).
        case starting(stoppers: [Stopper]?)
        /// Listening. Next: `stopped`.
        case running(Running)
        /// Terminal: a stopped server does not start again.
        case stopped
    }

    private(set) var state = State.idle

    /// What the server holds while it listens.
    var running: Running? {
        if case .running(let running) = state { return running }
        return nil
    }

    /// Whether a `stop()` came while the server was starting: the start gives up.
    var stopRequested: Bool {
        if case .starting(stoppers: .some) = state { return true }
        return false
    }

    /// `start()` claims the server; `false` when it was started (or stopped) already.
    mutating func start() -> Bool {
        guard case .idle = state else { return false }
        state = .starting(stoppers: nil)
        return true
    }

    enum Started: Equatable {
        /// Listening: the start returns.
        case running
        /// A `stop()` came meanwhile: stop listening, then ``startEnded()``.
        case stop
    }

    /// The start listens now, holding `running`.
    mutating func started(_ running: Running) -> Started {
        guard case .starting(stoppers: nil) = state else { return .stop }
        state = .running(running)
        return .running
    }

    /// The start failed, or gave up for a stop: `idle` (it may be tried again), or `stopped`
    /// when a stop came. Returns the stops waiting for it, to resume.
    mutating func startEnded() -> [Stopper] {
        guard case .starting(let stoppers) = state else { return [] }
        state = stoppers == nil ? .idle : .stopped
        return stoppers ?? []
    }

    enum Stop {
        /// Stop listening.
        case stopRunning(Running)
        /// A start is under way: it gives up; wait for it (``waitForStart(_:)``).
        case interruptStart
        /// Nothing listens (not started, or stopped already).
        case nothing
    }

    /// `stop()`; the server is stopped for good (once an interrupted start gave up).
    mutating func stop() -> Stop {
        switch state {
        case .idle, .stopped:
            state = .stopped
            return .nothing
        case .starting(let stoppers):
            state = .starting(stoppers: stoppers ?? [])
            return .interruptStart
        case .running(let running):
            state = .stopped
            return .stopRunning(running)
        }
    }

    /// `stopper` waits for the interrupted start to give up; `false` when it has already.
    mutating func waitForStart(_ stopper: Stopper) -> Bool {
        guard case .starting(stoppers: var stoppers?) = state else { return false }
        stoppers.append(stopper)
        state = .starting(stoppers: stoppers)
        return true
    }
}

extension ServerLifecycle: Sendable where Stopper: Sendable, Running: Sendable {}
extension ServerLifecycle.State: Sendable where Stopper: Sendable, Running: Sendable {}
