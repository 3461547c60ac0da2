import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol

extension ManagerConnection {
    /// A socket wants a connection: opens the session unless one exists or a reconnection delay
    /// will open it. Returns the session's revision and sid when one is open already.
    @discardableResult
    func openEngine() -> (SocketIOVersion, String)? {
        let action = transition { $0.machine.open(rememberUpgrade: configuration.rememberUpgrade) }
        return perform(action)
    }

    /// Acts on the state machine's answer to "a connection is wanted".
    @discardableResult
    func perform(_ action: ManagerStateMachine.OpenAction) -> (SocketIOVersion, String)? {
        switch action {
        case .joinOpen(let version, let sid):
            return (version, sid)
        case .wait:
            return nil
        case .start(let session, let version, let websocketOnly):
            startEngine(session: session, version: version, websocketOnly: websocketOnly)
            return nil
        }
    }

    /// Makes and opens the engine of session `session`, which the state machine made current.
    private func startEngine(session: Int, version: EngineIOVersion, websocketOnly: Bool) {
        var transports = configuration.transports
        if websocketOnly && transports.contains(.websocket) { transports = [.websocket] }
        if configuration.proxy != nil { transports = transports.filter { $0 == .polling } }
        let config = Engine.Configuration(
            endpoint: endpoint,
            version: version,
            transports: transports.isEmpty ? [.polling] : transports,
            upgrade: configuration.upgrade && configuration.proxy == nil,
            headers: configuration.extraHeaders.map { ($0.name, $0.value) },
            connectTimeout: configuration.connectTimeout,
            maxInboundMessageSize: configuration.maxInboundMessageSize,
            maxPacketsPerRequest: max(configuration.maxPacketsPerRequest, 1),
            timestampRequests: configuration.timestampRequests,
            trustRoots: configuration.trustRoots,
            proxy: configuration.proxy,
            cookies: cookies,
            clock: configuration.clock,
            logger: logger,
            eventLoop: eventLoop,
            network: configuration.network
        )
        let engine = Engine(configuration: config) { [weak self] event in
            self?.handle(event, session: session)
        }
        // The app may have closed meanwhile: then this session is no longer current.
        let current = transition { $0.install(engine, session: session, version: version) }
        guard current else { return }
        watchNetworkIfNeeded()
        logger.debug("opening Engine.IO session", metadata: ["socketio.version": "\(version)"])
        engine.open()
    }

    // MARK: - Engine events

    private func handle(_ event: EngineEvent, session: Int) {
        switch event {
        case .opened(let handshake, let transport):
            guard let (action, sockets) = transition({ $0.opened(session, sid: handshake.sid, transport: transport) }) else { return }
            guard case .announce(let version, let sid, let reconnected) = action else { return }
            logger.info("connected", metadata: [
                "socketio.sid": "\(sid)", "socketio.version": "\(version)", "socketio.transport": "\(transport)",
            ])
            recordRoute(of: session)
            publish(.open)
            if let attempt = reconnected {
                logger.info("reconnected", metadata: ["socketio.attempt": "\(attempt)"])
                publish(.reconnect(attempt))
            }
            for socket in sockets { socket.connection.engineOpened(version: version, sid: sid) }
        case .upgraded:
            guard transition({ $0.machine.upgraded(session) }) else { return }
            logger.debug("upgraded to WebSocket")
            publish(.upgrade)
        case .heartbeat:
            guard isCurrent(session) else { return }
            publish(.ping)
        case .message(let packet):
            guard isCurrent(session) else { return }
            receive(packet)
        case .closed(let reason):
            closed(session, reason: reason)
        }
    }

    private func isCurrent(_ session: Int) -> Bool {
        transition { $0.machine.isCurrent(session) }
    }

    private func closed(_ session: Int, reason: EngineCloseReason) {
        guard let (action, sockets) = transition({ $0.closed(session, reason: reason) }) else { return }
        logger.debug("Engine.IO session closed", metadata: ["socketio.reason": "\(reason)"])
        switch action {
        case .retryAsV3(let next):
            logger.debug("the server refused v4: retrying as v3")
            startEngine(session: next, version: .v3, websocketOnly: false)
        case .fail(let error):
            publish(.error(error.description))
            for socket in sockets { socket.connection.engineFailed(error) }
        case .lost(let wasOpen):
            let lost = DisconnectReason(reason)
            publish(wasOpen ? .close(lost) : .error(SocketIOError.connectionFailed(lost.detail).description))
            for socket in sockets { socket.connection.engineClosed(lost) }
            reconnectIfWanted(after: reason)
        }
    }
}
