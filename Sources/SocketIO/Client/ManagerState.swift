import SocketIOProtocol
import SwitchboardCore

/// Everything a ``Manager`` keeps, as one value: the session lifecycle and reconnection loop
/// (``ManagerStateMachine``), the session's engine and packet decoder, the sockets, the event
/// observers, the reconnection and suspension timers, and what it follows of the network.
///
/// The manager runs one method (or one machine transition) per event under its lock and does
/// what it hands back — open or close an engine, cancel a timer, tell the sockets — after.
struct ManagerState: Sendable {
    /// The session's engine; there is one exactly while ``machine`` has a session.
    var engine: Engine?
    var sockets = SocketTable()
    /// Decodes the current session's packets (its revision; partial binary packets).
    var decoder: SocketPacketDecoder
    var observers = ObserverSet<ManagerEvent>()
    /// The session lifecycle and the reconnection loop.
    var machine: ManagerStateMachine
    /// The timer of the reconnection delay running now.
    var reconnectTimer: ManagerConnection.Timer?
    /// Follows ``Manager/Configuration/networkMonitor`` while a connection is wanted.
    var networkWatch: NetworkObservation?
    /// Set while a network observation runs or is being started.
    var watchingNetwork = false
    /// The last path reported, to act on changes only.
    var lastPath: NetworkPath?
    /// The local address the open session's route leaves from (see ``RouteProbe``).
    var sourceAddress: (session: Int, address: String?)?
    /// The grace period of a suspension.
    var suspendTimer: ManagerConnection.Timer?

    init(decoder: SocketPacketDecoder, machine: ManagerStateMachine) {
        self.decoder = decoder
        self.machine = machine
    }

    /// Whether any socket wants the connection (connected, connecting, or waiting to reconnect).
    var wantsConnection: Bool { sockets.all.contains { $0.connection.isActive } }

    /// The socket of `namespace`, made by `make` on first use.
    mutating func socket(_ namespace: String, make: (SocketIOVersion) -> Socket) -> Socket {
        if let socket = sockets[namespace] { return socket }
        let socket = make(machine.version.socketIOVersion)
        sockets.add(socket)
        return socket
    }

    /// `socket` no longer wants the connection; whether any other still does.
    mutating func letGo(_ socket: NamespaceConnection) -> Bool {
        sockets.letGo(socket)
        return wantsConnection
    }

    /// The app closed the connection: the engine, the timers and the network watch to end.
    mutating func close() -> (engine: Engine?, action: ManagerStateMachine.CloseAction, timers: [ManagerConnection.Timer?], watch: NetworkObservation?) {
        defer {
            engine = nil
            reconnectTimer = nil
            networkWatch = nil
            watchingNetwork = false
            suspendTimer = nil
            lastPath = nil
        }
        return (engine, machine.close(), [reconnectTimer, suspendTimer], networkWatch)
    }

    // MARK: - Session

    /// Engine `engine` of session `session` is made: installed unless the app closed meanwhile.
    mutating func install(_ engine: Engine, session: Int, version: EngineIOVersion) -> Bool {
        guard machine.isCurrent(session) else { return false }
        decoder = SocketPacketDecoder(version: version.socketIOVersion)
        self.engine = engine
        return true
    }

    /// Session `session` opened: what to announce, and to which sockets.
    mutating func opened(_ session: Int, sid: String, transport: EngineTransportKind) -> (ManagerStateMachine.OpenedAction, [Socket])? {
        machine.opened(session, sid: sid, transport: transport).map { ($0, sockets.all) }
    }

    /// Session `session` closed: what follows, and the sockets to tell.
    mutating func closed(_ session: Int, reason: EngineCloseReason) -> (ManagerStateMachine.ClosedAction, [Socket])? {
        guard let action = machine.closed(session, reason: reason) else { return nil }
        engine = nil
        decoder.reset()
        return (action, sockets.all)
    }

    /// Decodes a message of the session and finds its namespace's socket.
    mutating func decode(_ message: EnginePacket) -> Result<(SocketPacket, Socket?)?, ProtocolError> {
        do throws(ProtocolError) {
            let decoded: SocketPacket?
            switch message {
            case .message(let text): decoded = try decoder.decode(text: text)
            case .binaryMessage(let data): decoded = try decoder.decode(binary: data)
            case .open, .close, .ping, .pong, .upgrade, .noop: decoded = nil
            }
            guard let packet = decoded else { return .success(nil) }
            return .success((packet, sockets[SocketNamespace.withoutQuery(packet.namespace)]))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Reconnection

    /// The connection was lost: what the reconnection loop does, and the sockets.
    mutating func connectionLost(random: Double) -> (ReconnectionStateMachine.LossAction, [Socket]) {
        (machine.connectionLost(wantsConnection: wantsConnection, random: random), sockets.all)
    }

    /// Keeps `timer` as the reconnection delay's while attempt `attempt` waits; returns it
    /// when the loop stopped meanwhile (to cancel).
    mutating func keepReconnectTimer(_ timer: ManagerConnection.Timer, attempt: Int) -> ManagerConnection.Timer? {
        guard machine.reconnection.state == .waiting(attempt: attempt) else { return timer }
        reconnectTimer = timer
        return nil
    }

    mutating func takeReconnectTimer() -> ManagerConnection.Timer? {
        defer { reconnectTimer = nil }
        return reconnectTimer
    }

    /// Given up on: the sockets are held no longer (a later `connect()` holds them again).
    mutating func letGoAll(_ given: [Socket]) {
        for socket in given { sockets.letGo(socket.connection) }
    }

    // MARK: - Suspension

    /// Keeps `timer` as the suspension's grace; returns the one it replaces.
    mutating func keepSuspendTimer(_ timer: ManagerConnection.Timer) -> ManagerConnection.Timer? {
        defer { suspendTimer = timer }
        return suspendTimer
    }

    /// The app is back: what to do, and the grace timer to cancel.
    mutating func resume(rememberUpgrade: Bool) -> (ManagerStateMachine.OpenAction?, ManagerConnection.Timer?) {
        defer { suspendTimer = nil }
        return (machine.resume(wantsConnection: wantsConnection, rememberUpgrade: rememberUpgrade), suspendTimer)
    }

    /// Suspension `token`'s grace elapsed: the session closes (its engine and the reconnection
    /// timer handed back).
    mutating func graceElapsed(_ token: Int) -> (ManagerStateMachine.CloseAction, Engine?, ManagerConnection.Timer?)? {
        guard let action = machine.graceElapsed(token) else { return nil }
        defer { engine = nil; reconnectTimer = nil }
        return (action, engine, reconnectTimer)
    }

    // MARK: - Network

    /// Claims the start of the network observation; `false` when one runs or is starting.
    mutating func claimNetworkWatch() -> Bool {
        guard !watchingNetwork else { return false }
        watchingNetwork = true
        return true
    }

    /// Keeps the started observation; `false` when the manager closed meanwhile (cancel it).
    mutating func keep(_ observation: NetworkObservation) -> Bool {
        guard watchingNetwork else { return false }
        networkWatch = observation
        return true
    }

    /// A path was reported: what the machine does about it (nothing for a repeated path).
    mutating func pathChanged(_ path: NetworkPath, rememberUpgrade: Bool) -> ManagerStateMachine.NetworkAction {
        guard lastPath != path else { return .none }
        lastPath = path
        return machine.networkChanged(available: path.status == .satisfied, rememberUpgrade: rememberUpgrade)
    }

    /// Records the local address session `session` leaves from (once, while current).
    mutating func record(source: String?, of session: Int) {
        guard machine.isCurrent(session), sourceAddress?.session != session else { return }
        sourceAddress = (session, source)
    }

    /// After a path change: the engine to fail and the address it left from, when session
    /// `session` would now leave from another local address (`now`); the first report is the
    /// baseline.
    mutating func routeMoved(of session: Int, now: String?) -> (Engine, String?)? {
        guard let recorded = sourceAddress, recorded.session == session else {
            if machine.isCurrent(session) { sourceAddress = (session, now) }
            return nil
        }
        guard recorded.address != now, let engine, machine.routeChanged(session) else { return nil }
        return (engine, recorded.address)
    }
}
