/// The listening connection's life: which connection the namespaces' `LISTEN`s run on, and
/// what to do when it is lost, when a new one is up, and on shutdown.
///
/// Generic over the connection so its tests need no database; times come in as arguments. Each
/// connection has a generation; news about an older one (its close, seen late) changes nothing.
///
/// The journal catch-up after a reconnection reaches back to the earliest loss not yet caught
/// up on every namespace: when the connection is lost again while a catch-up reads, the next
/// one still starts from the first loss (it restarted from the second, and what was published
/// between the first loss and the first reconnection was never delivered).
struct ListenerStateMachine<Connection> {
    private enum State {
        /// Listening on `connection`; next: `reconnecting` (lost) or `closed`.
        case listening(Connection, generation: Int)
        /// Waiting for a new connection, which will have `generation`; next: `listening` or
        /// `closed`.
        case reconnecting(generation: Int)
        /// Shut down; final.
        case closed
    }

    private var state: State
    /// The subscribed namespaces, in subscription order: listened to again on each new connection.
    private(set) var namespaces: [String] = []
    /// The earliest loss whose catch-up has not finished on every namespace.
    private var lostSince: ContinuousClock.Instant?
    /// The namespaces whose catch-up on the current connection has not finished.
    private var catchingUp: Set<String> = []

    /// Starts listening on the first connection.
    init(connection: Connection) {
        state = .listening(connection, generation: 0)
    }

    enum SubscribeAction {
        /// Send `LISTEN` for the namespace on this connection now.
        case listen(Connection, generation: Int)
        /// The next connection will listen (the namespace is recorded).
        case waitForConnection
        /// The namespace was subscribed already: nothing to send.
        case alreadySubscribed
        /// Shut down: fail the call.
        case closed
    }

    mutating func subscribe(_ namespace: String) -> SubscribeAction {
        if case .closed = state { return .closed }
        guard !namespaces.contains(namespace) else { return .alreadySubscribed }
        namespaces.append(namespace)
        switch state {
        case .listening(let connection, let generation): return .listen(connection, generation: generation)
        case .reconnecting: return .waitForConnection
        case .closed: return .closed
        }
    }

    /// `LISTEN` for `namespace`, sent on the connection of `generation` (``subscribe(_:)``'s
    /// `.listen`), failed. While that connection is still the current one the namespace is
    /// forgotten: nothing listens on it, so a retried subscribe must send `LISTEN` again (it
    /// answered `.alreadySubscribed`, and nothing ever listened). When that connection was lost
    /// meanwhile, the namespace stays: the next connection listens on it (or did already).
    mutating func listenFailed(_ namespace: String, generation: Int) {
        guard case .listening(_, let current) = state, current == generation else { return }
        namespaces.removeAll { $0 == namespace }
    }

    enum LostAction {
        /// Wait a reconnection delay, then connect again.
        case reconnect
        /// Old news or shut down: nothing to do.
        case none
    }

    /// The connection of `generation` closed at `now`.
    mutating func connectionLost(generation: Int, at now: ContinuousClock.Instant) -> LostAction {
        guard case .listening(_, let current) = state, current == generation else { return .none }
        state = .reconnecting(generation: generation + 1)
        if lostSince == nil { lostSince = now }
        return .reconnect
    }

    enum ConnectedAction {
        /// Listen on every namespace, in order, on the new connection; each catches up with the
        /// journal from `catchUpFrom` when set (and reports it with ``caughtUp(_:generation:)``).
        case listen(Connection, generation: Int, namespaces: [String], catchUpFrom: ContinuousClock.Instant?)
        /// Shut down meanwhile: close the new connection.
        case close(Connection)
    }

    /// A new connection is up.
    mutating func connected(_ connection: Connection) -> ConnectedAction {
        switch state {
        case .reconnecting(let generation):
            state = .listening(connection, generation: generation)
            catchingUp = Set(namespaces)
            if catchingUp.isEmpty { lostSince = nil }
            return .listen(connection, generation: generation, namespaces: namespaces, catchUpFrom: lostSince)
        case .listening, .closed:
            return .close(connection)
        }
    }

    /// `namespace` delivered its catch-up on the connection of `generation`; once every
    /// namespace did, the loss is caught up.
    mutating func caughtUp(_ namespace: String, generation: Int) {
        guard case .listening(_, let current) = state, current == generation, lostSince != nil else { return }
        catchingUp.remove(namespace)
        if catchingUp.isEmpty { lostSince = nil }
    }

    /// Whether a reconnection is still wanted (not shut down, nor connected by another attempt).
    var isReconnecting: Bool {
        if case .reconnecting = state { return true }
        return false
    }

    /// Shuts down; returns the connection to close, if one is open.
    mutating func shutdown() -> Connection? {
        defer { state = .closed }
        if case .listening(let connection, _) = state { return connection }
        return nil
    }
}

extension ListenerStateMachine {
    /// Whether ``shutdown()`` was called.
    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }
}
