/// The life of one connection as a value: SPEC.md's state table, which operations each state
/// allows, and which transport attempt is current. No I/O, no locks, no clocks: the owner
/// (``DriverConnection``) runs the returned actions after its lock is released.
///
/// Every open of the transport is an ``Attempt``; results and transport events of an attempt
/// that is no longer current (the app disconnected meanwhile) are reported as `stale` and ignored.
struct ConnectionStateMachine: Sendable {
    /// One open of the transport.
    struct Attempt: Hashable, Sendable, CustomStringConvertible {
        let number: UInt64
        var description: String { "attempt \(number)" }
    }

    enum State: Sendable, Hashable {
        /// Never opened; `opening` while the first open is in flight.
        case created(opening: Attempt?)
        case connected(Attempt)
        case disconnected
        case reconnecting(Attempt)
        case released
    }

    private(set) var state: State = .created(opening: nil)
    private var attempts: UInt64 = 0

    /// The public view of ``state``.
    var connectionState: ConnectionState { Self.publicState(of: state) }

    static func publicState(of state: State) -> ConnectionState {
        switch state {
        case .created: .created
        case .connected: .connected
        case .disconnected: .disconnected
        case .reconnecting: .reconnecting
        case .released: .released
        }
    }

    /// The attempt whose events count: the one opening or connected.
    var currentAttempt: Attempt? {
        switch state {
        case .created(let opening): opening
        case .connected(let attempt), .reconnecting(let attempt): attempt
        case .disconnected, .released: nil
        }
    }

    /// Moves to `target` if the table allows it; otherwise throws and leaves the state unchanged.
    private mutating func move(to target: State) throws(ConnectionError) {
        let from = connectionState
        let to = Self.publicState(of: target)
        guard from.canMove(to: to) else { throw .illegalTransition(from: from, to: to) }
        state = target
    }

    private mutating func nextAttempt() -> Attempt {
        attempts += 1
        return Attempt(number: attempts)
    }

    // MARK: - Inputs from the app

    enum ConnectAction: Hashable, Sendable {
        /// Open the transport as `attempt`; the caller waits for its result.
        case open(Attempt)
        /// An open is in flight already: wait for its result.
        case join(Attempt)
    }

    /// `connect()`: from `created` the first open; from `disconnected` a reconnection
    /// (`reconnecting`). Refused while `connected` or `reconnecting`, and once `released`.
    mutating func connect() throws(ConnectionError) -> ConnectAction {
        switch state {
        case .created(opening: nil):
            let attempt = nextAttempt()
            state = .created(opening: attempt)
            return .open(attempt)
        case .created(opening: let attempt?):
            return .join(attempt)
        case .connected:
            throw .notAllowed(operation: .connect, state: .connected)
        case .disconnected:
            let attempt = nextAttempt()
            try move(to: .reconnecting(attempt))
            return .open(attempt)
        case .reconnecting:
            throw .notAllowed(operation: .connect, state: .reconnecting)
        case .released:
            throw .released
        }
    }

    enum DisconnectAction: Hashable, Sendable {
        /// Nothing was open or opening.
        case none
        /// Close the transport; `abandoning` is the open attempt given up (its waiters fail).
        case close(abandoning: Attempt?)
    }

    /// `disconnect()`: to `disconnected` from every live state (a no-op when already there).
    mutating func disconnect() throws(ConnectionError) -> DisconnectAction {
        switch state {
        case .created(opening: nil):
            try move(to: .disconnected)
            return .none
        case .created(opening: let attempt?), .reconnecting(let attempt):
            try move(to: .disconnected)
            return .close(abandoning: attempt)
        case .connected:
            try move(to: .disconnected)
            return .close(abandoning: nil)
        case .disconnected:
            return .none
        case .released:
            throw .released
        }
    }

    /// `release()`: only from `disconnected`; terminal.
    mutating func release() throws(ConnectionError) {
        switch state {
        case .created, .connected, .reconnecting, .disconnected:
            try move(to: .released)
        case .released:
            throw .released
        }
    }

    enum CommandAction: Hashable, Sendable {
        /// Connected: hand it to the transport (unless older commands are still queued).
        case execute
        /// Not connected: queue it until the connection is up.
        case enqueue
    }

    /// `send` or `request`: executed while connected, queued in every other live state.
    func command(_ operation: ConnectionOperation) throws(ConnectionError) -> CommandAction {
        switch state {
        case .connected: .execute
        case .created, .disconnected, .reconnecting: .enqueue
        case .released: throw .released
        }
    }

    /// `events(named:)`: allowed in every state but `released` (early subscriptions take effect
    /// on connect).
    func subscribe() throws(ConnectionError) {
        switch state {
        case .created, .connected, .disconnected, .reconnecting: return
        case .released: throw .released
        }
    }

    // MARK: - Inputs from the transport

    enum OpenResultAction: Hashable, Sendable {
        /// The state changed: `connected` (run the queue) or `disconnected` (fail the waiters).
        case moved
        /// The attempt is no longer current (the app disconnected meanwhile): ignore it.
        case stale
    }

    /// The transport of `attempt` opened.
    mutating func openSucceeded(_ attempt: Attempt) -> OpenResultAction {
        switch state {
        case .created(opening: attempt), .reconnecting(attempt):
            state = .connected(attempt)
            return .moved
        case .created, .connected, .disconnected, .reconnecting, .released:
            return .stale
        }
    }

    /// The transport of `attempt` failed to open.
    mutating func openFailed(_ attempt: Attempt) -> OpenResultAction {
        switch state {
        case .created(opening: attempt), .reconnecting(attempt):
            state = .disconnected
            return .moved
        case .created, .connected, .disconnected, .reconnecting, .released:
            return .stale
        }
    }

    /// The transport of `attempt` closed by itself.
    mutating func transportClosed(_ attempt: Attempt) -> OpenResultAction {
        switch state {
        case .connected(attempt):
            state = .disconnected
            return .moved
        case .created, .connected, .disconnected, .reconnecting, .released:
            return .stale
        }
    }
}
