import SocketIOProtocol

/// A manager's Engine.IO session lifecycle as a value type: which session is current, whether
/// it opened, which revision it speaks, whether it upgraded, and the reconnection loop. No I/O,
/// no clocks: ``Manager`` makes each transition under its lock and acts on the answer after.
///
/// `idle` → (a socket wants a connection) `opening(n)` → (handshake) `open(n)` → (lost)
/// `idle` and the reconnection loop decides; a v4 handshake refused by a v3 server, with
/// `version: .auto`, goes straight to `opening(n+1)` as v3. The app's close ends any state.
/// Sessions are numbered: a late report from an older one is ignored.
struct ManagerStateMachine: Sendable {
    enum Session: Sendable, Equatable {
        /// No session (none yet, or the last one closed).
        case idle
        /// Session `id` is opening.
        case opening(id: Int)
        /// Session `id` opened: the handshake came with `sid`.
        case open(id: Int, sid: String)
    }

    private(set) var session: Session = .idle
    /// The number of the newest session.
    private(set) var sessionCount = 0
    /// The revision of the current (or last) session.
    private(set) var version: EngineIOVersion
    /// Whether the last session ran on WebSocket (for `rememberUpgrade`).
    private(set) var lastSessionUpgraded = false
    /// The transport of the current session as the manager heard it: set when the session
    /// opened, WebSocket once the manager heard of the upgrade (so that `rememberUpgrade`,
    /// which reads ``lastSessionUpgraded``, and what ``Manager/transport`` shows never disagree).
    private(set) var sessionTransport: EngineTransportKind?
    private(set) var reconnection: ReconnectionStateMachine
    /// Where the app's lifecycle has the manager (``Manager/suspend(after:)``).
    private(set) var lifecycle: Lifecycle = .active
    private var suspensions = 0
    /// The session was closed because the network path moved: reconnect without a delay.
    private var reconnectImmediately = false
    /// The revision tried first, and whether `.auto` lets a refused v4 retry as v3.
    private let firstVersion: EngineIOVersion
    private let retriesAsV3: Bool

    init(version: EngineIOVersion, retriesAsV3: Bool, reconnection: ReconnectionStateMachine) {
        self.version = version
        self.firstVersion = version
        self.retriesAsV3 = retriesAsV3
        self.reconnection = reconnection
    }

    /// Whether a session exists (opening or open).
    var hasSession: Bool { session != .idle }

    /// Whether the session that opened is still current.
    var isOpen: Bool {
        if case .open = session { return true }
        return false
    }

    /// Whether `id` is the current session.
    func isCurrent(_ id: Int) -> Bool {
        switch session {
        case .idle: false
        case .opening(let current), .open(let current, _): current == id
        }
    }

    // MARK: - Opening

    enum OpenAction: Sendable, Equatable {
        /// Open session `session` speaking `version`; only over WebSocket when the last one
        /// upgraded and `rememberUpgrade` asks for it.
        case start(session: Int, version: EngineIOVersion, websocketOnly: Bool)
        /// A session is open already: join it.
        case joinOpen(SocketIOVersion, sid: String)
        /// A session is opening, or a reconnection delay runs whose attempt will open one.
        case wait
    }

    /// A socket wants a connection.
    mutating func open(rememberUpgrade: Bool) -> OpenAction {
        // Suspended: the session opens on resume (emits meanwhile wait in the sockets' buffers).
        if lifecycle == .suspended { return .wait }
        switch session {
        case .open(_, let sid): return .joinOpen(version.socketIOVersion, sid: sid)
        case .opening: return .wait
        case .idle:
            // A reconnection delay is running: its attempt opens the session (as socket.io does).
            if reconnection.isWaiting { return .wait }
            return start(rememberUpgrade: rememberUpgrade)
        }
    }

    /// A reconnection delay passed: whether to open (the loop may have stopped meanwhile).
    mutating func delayElapsed(attempt: Int, rememberUpgrade: Bool) -> OpenAction? {
        guard reconnection.delayElapsed(attempt: attempt) else { return nil }
        guard case .idle = session else { return .wait }
        return start(rememberUpgrade: rememberUpgrade)
    }

    private mutating func start(rememberUpgrade: Bool) -> OpenAction {
        let id = begin(firstVersion)
        return .start(session: id, version: firstVersion, websocketOnly: rememberUpgrade && lastSessionUpgraded)
    }

    /// Numbers a new session speaking `version` and makes it current.
    private mutating func begin(_ version: EngineIOVersion) -> Int {
        sessionCount += 1
        self.version = version
        session = .opening(id: sessionCount)
        sessionTransport = nil
        return sessionCount
    }

    // MARK: - Engine reports

    enum OpenedAction: Sendable, Equatable {
        /// Announce the open session to the app and the sockets; `reconnected` is the attempt
        /// that made it, when it was a reconnection.
        case announce(SocketIOVersion, sid: String, reconnected: Int?)
    }

    /// Session `id` completed its handshake on `transport`.
    mutating func opened(_ id: Int, sid: String, transport: EngineTransportKind) -> OpenedAction? {
        guard case .opening(id) = session else { return nil }
        session = .open(id: id, sid: sid)
        lastSessionUpgraded = transport == .websocket
        sessionTransport = transport
        return .announce(version.socketIOVersion, sid: sid, reconnected: reconnection.opened())
    }

    /// Session `id` moved to WebSocket. Returns whether it is current.
    mutating func upgraded(_ id: Int) -> Bool {
        guard isCurrent(id) else { return false }
        lastSessionUpgraded = true
        sessionTransport = .websocket
        return true
    }

    enum ClosedAction: Sendable, Equatable {
        /// A refused v4 handshake under `.auto`: open session `session` as v3.
        case retryAsV3(session: Int)
        /// The session cannot be had (a revision the server does not speak, a refused
        /// handshake): fail the sockets, no reconnection.
        case fail(SocketIOError)
        /// The session closed or could not open; `wasOpen` tells which. The reconnection loop
        /// decides next (``connectionLost(wantsConnection:random:)``).
        case lost(wasOpen: Bool)
    }

    /// Session `id` ended for `reason` without the app asking; nil when it is not current.
    mutating func closed(_ id: Int, reason: EngineCloseReason) -> ClosedAction? {
        guard isCurrent(id) else { return nil }
        let wasOpen = isOpen
        session = .idle
        switch reason {
        case .unsupportedVersion(let tried, let serverSpeaks, _):
            if !wasOpen && retriesAsV3 && tried == .v4 {
                return .retryAsV3(session: begin(.v3))
            }
            reconnection.stop()
            return .fail(.versionMismatch(client: tried, server: serverSpeaks ?? (tried == .v4 ? .v3 : .v4)))
        case .handshakeRefused(let body):
            reconnection.stop()
            let message = (try? JSONValue(parsing: body))?.stringValue ?? body
            return .fail(.connectError(message: message, data: nil))
        default:
            return .lost(wasOpen: wasOpen)
        }
    }

    /// After ``ClosedAction/lost(wasOpen:)``: start, continue or give up the reconnection loop.
    mutating func connectionLost(wantsConnection: Bool, random: Double) -> ReconnectionStateMachine.LossAction {
        defer { reconnectImmediately = false }
        guard lifecycle != .suspended else { return .none }
        return reconnection.connectionLost(wantsConnection: wantsConnection, random: random, immediately: reconnectImmediately)
    }

    // MARK: - The network path

    enum NetworkAction: Sendable, Equatable {
        /// Check that session `session` still has the route it was made on.
        case checkRoute(session: Int)
        /// A reconnection attempt was waiting (for its delay or for a path): make it now.
        case attemptNow(attempt: Int, OpenAction)
        case none
    }

    /// The network path changed (or was first reported).
    mutating func networkChanged(available: Bool, rememberUpgrade: Bool) -> NetworkAction {
        let attempt = reconnection.networkChanged(available: available)
        guard available, lifecycle != .suspended else { return .none }
        if let attempt {
            guard case .idle = session else { return .none }
            return .attemptNow(attempt: attempt, start(rememberUpgrade: rememberUpgrade))
        }
        if case .open(let id, _) = session { return .checkRoute(session: id) }
        return .none
    }

    /// Session `id`'s route moved: it is being closed, and the reconnection that follows goes at
    /// once. Returns whether `id` is current.
    mutating func routeChanged(_ id: Int) -> Bool {
        guard isCurrent(id) else { return false }
        reconnectImmediately = true
        return true
    }

    // MARK: - The app's lifecycle

    enum Lifecycle: Sendable, Equatable {
        case active
        /// Suspended by the app; the session closes when grace period `token` ends.
        case suspending(token: Int)
        /// The session is closed (kept for recovery on the server) until the app resumes.
        case suspended
    }

    /// The app went to the background: returns the token of the grace period to wait out.
    mutating func suspend() -> Int {
        if case .suspending(let token) = lifecycle { return token }
        suspensions += 1
        if lifecycle == .active { lifecycle = .suspending(token: suspensions) }
        return suspensions
    }

    /// Grace period `token` ended: close the session (the sockets stay wanted, without
    /// reconnecting). Nil when the app resumed meanwhile.
    mutating func graceElapsed(_ token: Int) -> CloseAction? {
        guard lifecycle == .suspending(token: token) else { return nil }
        lifecycle = .suspended
        reconnection.stop()
        defer { session = .idle }
        switch session {
        case .idle: return CloseAction.none
        case .opening: return .close(wasOpen: false)
        case .open: return .close(wasOpen: true)
        }
    }

    /// The app came back: reconnect at once when the session was closed for the suspension and
    /// a socket wants it (then they recover their sessions).
    mutating func resume(wantsConnection: Bool, rememberUpgrade: Bool) -> OpenAction? {
        let wasSuspended = lifecycle == .suspended
        lifecycle = .active
        guard wasSuspended, wantsConnection, case .idle = session else { return nil }
        return start(rememberUpgrade: rememberUpgrade)
    }

    // MARK: - The app

    enum CloseAction: Sendable, Equatable {
        /// Close the session; `wasOpen` says whether the app saw it open (then it hears `close`).
        case close(wasOpen: Bool)
        /// No session: only the reconnection loop (if any) stopped.
        case none
    }

    /// The app closed the connection, or no socket wants one any more.
    mutating func close() -> CloseAction {
        reconnection.stop()
        lifecycle = .active
        defer { session = .idle }
        switch session {
        case .idle: return .none
        case .opening: return .close(wasOpen: false)
        case .open: return .close(wasOpen: true)
        }
    }
}
