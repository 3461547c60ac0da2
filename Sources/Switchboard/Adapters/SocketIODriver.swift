import SwitchboardCore
public import Logging
import NIOConcurrencyHelpers
import SocketIO
public import SocketIOProtocol

/// The Socket.IO technology under a ``DriverConnection``: one `Manager` and one `Socket` (the
/// configuration's namespace) of the Socket.IO client. The only place, with
/// ``ConnectionFactory/socketIO``, that imports `SocketIO`.
///
/// - Automatic reconnection in the client is off: the ``ConnectionKeeper`` reconnects pooled
///   connections, so a dropped transport is reported as ``DriverEvent/closed(reason:)`` and
///   left closed.
/// - Events: one catch-all listener; an event's arguments become its payload (one argument →
///   that value, several → `.array`, none → `.null`). Server events that ask for an ack get none.
/// - `send(event, payload)` emits one argument, `payload`; `request` is `emitWithAck`, and the
///   reply's items are the ``Response``'s values.
public final class SocketIODriver: ConnectionDriver {
    let manager: Manager
    let socket: Socket
    /// Where the manager came from, to hand it back when the driver goes away.
    private let sharing: (managers: SharedManagers, key: SharedManagers.Key, namespace: String)?

    private struct State: Sendable {
        /// Where events go while open; `nil` once closed (so a close is reported once, and our
        /// own close not at all).
        var onEvent: (@Sendable (DriverEvent) -> Void)?
        /// The number of the last `open`. Each open registers its own `connect` and `disconnect`
        /// listeners, which carry its number: the socket picks an event's listeners when it
        /// dispatches it, so a session's events reach the listeners of the open that was
        /// current then, however late the handler executor runs them. An earlier session's
        /// events, reported late (the one ``suspend()`` closed, whose listeners ran only once
        /// `open` had begun again), must not end the new one and silence its events.
        var open = 0
        /// Whether the socket connected since the last `open` began (its `connect` listener ran,
        /// or `open` saw `connect()` return). Listeners run in order, and a session's
        /// `disconnect` comes after its `connect`: one that comes before is an earlier session's.
        var connectedSinceOpen = false
        /// The last open's `connect` and `disconnect` listeners.
        var listeners: [ListenerID] = []
    }

    private let state = NIOLockedValueBox(State())

    /// A driver for `configuration` (nothing opens until ``open(onEvent:)``).
    ///
    /// - Throws: ``ConnectionError/invalidConfiguration(_:)`` for a URL the client cannot use, or
    ///   whose path names another namespace than the configuration's.
    public convenience init(
        configuration: ConnectionConfiguration,
        logger: Logger? = nil
    ) throws(ConnectionError) {
        let logger = logger ?? .disabled("switchboard.socketio")
        try self.init(configuration: configuration, logger: logger, sharing: nil)
    }

    /// A driver whose manager comes from `sharing` (one Engine.IO session for the namespaces of
    /// one server), or its own when `nil`.
    /// `followsNetwork: false` leaves the manager without a network monitor (a failover link:
    /// the failover driver follows the network itself).
    init(configuration: ConnectionConfiguration, logger: Logger, sharing: SharedManagers?, followsNetwork: Bool = true) throws(ConnectionError) {
        do {
            // The URL's path may name the namespace (socket.io's `io(url)`); never a different one.
            _ = try SocketNamespace.resolve(url: configuration.url, namespace: configuration.namespace)
        } catch {
            throw .invalidConfiguration(error.description)
        }
        let make = { () throws(ConnectionError) -> Manager in
            try Self.makeManager(configuration, logger: logger, followsNetwork: followsNetwork)
        }
        if let sharing {
            manager = try sharing.acquire(configuration, make: make)
        } else {
            manager = try make()
        }
        self.sharing = sharing.map { ($0, SharedManagers.Key(configuration), configuration.namespace) }
        socket = manager.socket(namespace: configuration.namespace, auth: Self.socketAuth(configuration.auth))
        socket.onAny { [weak self] event in
            let payload = Self.payload(of: event.items)
            if let ack = event.ack {
                // Socket.IO has no "declined" ack: a request nobody answers times out on the server.
                self?.report(.request(event.name, payload, DriverReply(send: { ack.respond($0) })))
            } else {
                self?.report(.event(event.name, payload))
            }
        }
    }

    /// A driver let go without ``close()`` leaves its namespace, so its manager closes the
    /// session when no other namespace uses it (the manager and its socket hold each other while
    /// connected: nothing else would end the session); the manager goes back to its registry.
    deinit {
        socket.disconnect()
        if let sharing { sharing.managers.release(manager, namespace: sharing.namespace, key: sharing.key) }
    }

    static func makeManager(_ configuration: ConnectionConfiguration, logger: Logger, followsNetwork: Bool) throws(ConnectionError) -> Manager {
        var options = Manager.Configuration()
        if !followsNetwork { options.networkMonitor = nil }
        options.path = configuration.path
        options.extraHeaders = configuration.headers.map { ($0.name, $0.value) }
        switch configuration.transport {
        case .pollingThenWebSocket:
            options.transports = [.polling, .websocket]
            options.upgrade = true
        case .webSocketOnly:
            options.transports = [.websocket]
        case .pollingOnly:
            options.transports = [.polling]
            options.upgrade = false
        }
        options.connectTimeout = configuration.connectTimeout
        options.network = configuration.network
        options.defaultAckTimeout = configuration.requestTimeout
        options.reconnection = false
        options.logger = logger
        do {
            return try Manager(url: configuration.url, configuration: options)
        } catch {
            throw .invalidConfiguration(error.description)
        }
    }

    static func socketAuth(_ auth: ConnectionAuth) -> SocketAuth {
        switch auth {
        case .none: .none
        case .static(let object): .static(object)
        case .provider(_, let provider): .provider(provider)
        }
    }

    /// An event's arguments as one payload.
    static func payload(of items: [JSONValue]) -> JSONValue {
        switch items.count {
        case 0: .null
        case 1: items[0]
        default: .array(items)
        }
    }

    /// Connects the namespace (the manager's Engine.IO session first, when it is not open) and
    /// returns once connected; a recovered session's missed events came through `onEvent` first.
    public func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
        let (open, earlier) = state.withLockedValue { state in
            state.onEvent = onEvent
            state.open += 1
            state.connectedSinceOpen = false
            defer { state.listeners = [] }
            return (state.open, state.listeners)
        }
        for id in earlier { socket.off(id) }
        let listeners = [
            socket.on("connect") { [weak self] _ in
                self?.state.withLockedValue { state in
                    if state.open == open { state.connectedSinceOpen = true }
                }
            },
            socket.on("disconnect") { [weak self] event in
                self?.disconnected(reason: event.items.first?.stringValue ?? "transport close", open: open)
            },
        ]
        state.withLockedValue { $0.listeners = listeners }
        // After a suspension the manager opens again only when told (it reconnects at once).
        manager.resume()
        do {
            try await socket.connect()
        } catch {
            state.withLockedValue { $0.onEvent = nil }
            throw ConnectionError.connectFailed(error.description)
        }
        // Connected, maybe before this open (another namespace's driver reopened a shared
        // session): that session's end is this open's to report. A late report of an earlier
        // one finds the socket connected, and is dropped for that.
        state.withLockedValue { state in
            if state.open == open { state.connectedSinceOpen = true }
        }
    }

    /// Closes the Engine.IO session without leaving the namespace, as a lost connection would:
    /// the server keeps the session for recovery. On a session shared with other namespaces
    /// (``ConnectionFactory/socketIO``), those are suspended with it.
    public func suspend() async {
        state.withLockedValue { $0.onEvent = nil }
        manager.suspend()
    }

    /// Leaves the namespace; closes the manager's session unless another namespace uses it. No ``DriverEvent/closed(reason:)`` follows.
    public func close() async {
        state.withLockedValue { $0.onEvent = nil }
        // A shared manager stays open while another namespace uses it.
        if manager.hasActiveSockets(besides: socket) {
            socket.disconnect()
        } else {
            await manager.close()
        }
    }

    /// Whether the last connect resumed the server's session (connection state recovery): the
    /// events the server sent meanwhile came through `onEvent` before ``open(onEvent:)`` returned.
    /// `false` when the server started a new session (or does not enable recovery).
    public var recovered: Bool? { socket.recovered }

    /// The Engine.IO transport carrying the socket now (`"polling"`, `"websocket"`).
    public var transportName: String? { socket.io.transport?.rawValue }

    /// The manager's session opening, upgrading to WebSocket and closing, until it is closed.
    public func transportChanges() -> AsyncStream<Void> {
        AsyncStream.relaying(manager.events) { event in
            switch event {
            case .open, .upgrade, .close: ()
            case .ping, .error, .reconnectAttempt, .reconnectError, .reconnect, .reconnectFailed: nil
            }
        }
    }

    /// Writes the event now or throws ``DriverError/notConnected``: never into the client's
    /// offline buffer, so the connection's queue is the only one (and its count is true).
    public func send(_ event: String, _ payload: JSONValue) async throws {
        try sendNow(event, payload)
    }

    /// ``send(_:_:)`` without suspending (a failover link sends under its channel's order).
    func sendNow(_ event: String, _ payload: JSONValue) throws {
        let written: Bool
        do {
            written = try socket.emitVolatile(event, payload)
        } catch {
            throw ConnectionError.driverFailed(error.description)
        }
        guard written else { throw DriverError.notConnected }
    }

    /// Emits `event` with `payload` and waits at most `timeout` for the acknowledgement, whose items are the response.
    public func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        do {
            return Response(values: try await socket.emitWithAck(event, payload, timeout: timeout))
        } catch {
            throw Self.requestFailure(error, event: event, timeout: timeout)
        }
    }

    /// What a request's caller hears for the socket's `error`.
    private static func requestFailure(_ error: SocketIOError, event: String, timeout: Duration) -> ConnectionError {
        switch error {
        case .ackTimeout: .timedOut(event: event, after: timeout)
        case .disconnected(let reason): .connectionLost(reason.description)
        default: .driverFailed(error.description)
        }
    }

    private func report(_ event: DriverEvent) {
        let onEvent = state.withLockedValue { $0.onEvent }
        onEvent?(event)
    }

    /// The socket left its namespace, as the listeners of `open` heard it. Our own close is not
    /// reported (it cleared `onEvent`, and its reason is `io client disconnect`); neither is a
    /// late report of an earlier session (an earlier open's listeners, or a `disconnect` before
    /// this open's session connected), nor one once connected again.
    private func disconnected(reason: String, open: Int) {
        guard reason != DisconnectReason.ioClientDisconnect.description, !socket.connected else { return }
        let onEvent = state.withLockedValue { state -> (@Sendable (DriverEvent) -> Void)? in
            guard state.open == open, state.connectedSinceOpen else { return nil }
            defer { state.onEvent = nil }
            return state.onEvent
        }
        onEvent?(.closed(reason: reason))
    }
}

extension ConnectionFactory where Self == DriverConnectionFactory {
    /// Socket.IO connections with the default clock and no logging.
    public static var socketIO: DriverConnectionFactory { socketIO() }

    /// Socket.IO connections; `clock` measures request deadlines, `logger` gets the client's logs.
    public static func socketIO(
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger? = nil
    ) -> DriverConnectionFactory {
        let logger = logger ?? .disabled("switchboard.socketio")
        // One registry per factory: its connections to one server share an Engine.IO session.
        let sharing = SharedManagers()
        return DriverConnectionFactory(clock: clock, logger: logger) { configuration throws(ConnectionError) in
            try SocketIODriver(configuration: configuration, logger: logger, sharing: sharing)
        }
    }
}

extension SocketIODriver: CallbackRequestDriver {
    /// `request` without a deadline or task of its own: its connection keeps the deadline.
    func startRequest(
        _ event: String, _ payload: JSONValue, timeout: Duration,
        complete: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> @Sendable () -> Void {
        do {
            return try socket.emitAwaitingAck(event, items: [payload]) { result in
                complete(result.map { Response(values: $0) }.mapError { Self.requestFailure($0, event: event, timeout: timeout) })
            }
        } catch {
            complete(.failure(Self.requestFailure(error, event: event, timeout: timeout)))
            return {}
        }
    }
}
