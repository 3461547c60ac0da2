import SwitchboardCore
public import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol

/// One connection to a Socket.IO server, shared by the sockets of its namespaces.
///
/// A manager owns one Engine.IO session and multiplexes any number of namespaces over it.
/// It opens the session when a socket connects and closes it when the last socket leaves.
///
/// ```swift
/// let manager = try Manager(url: URL(string: "http://localhost:3000")!)
/// let chat = manager.socket(namespace: "/chat", auth: .static(["token": "secret"]))
/// chat.on("message") { event in print(event.items) }
/// try await chat.connect()
/// try chat.emit("message", "hello")
/// ```
public final class Manager: Sendable {
    /// The server URL.
    public let url: URL
    /// The configuration the manager was made with.
    public let configuration: Configuration
    let endpoint: EngineEndpoint
    let executor: HandlerExecutor
    /// The configured clock as a timeline (ack deadlines).
    let timeline: Timeline
    let logger: Logger

    struct Inner: Sendable {
        var engine: Engine?
        var sockets: [String: Socket] = [:]
        var decoder: SocketPacketDecoder
        var observers = ObserverSet<ManagerEvent>()
        var wasOpen = false
        /// Numbers engine sessions, so a late event from an old one is ignored.
        var session = 0
        /// The revision of the current (or last) session.
        var version: EngineIOVersion
        /// Whether the last session upgraded to WebSocket (for `rememberUpgrade`).
        var lastSessionUpgraded = false
        /// When to reconnect, and the timer of the delay running now.
        var reconnection: ReconnectionStateMachine
        var reconnectTimer: Task<Void, Never>?
    }

    let inner: NIOLockedValueBox<Inner>

    /// A manager for the server at `url` (`http`, `https`, `ws` or `wss`).
    public init(url: URL, configuration: Configuration = Configuration()) throws(SocketIOError) {
        self.url = url
        self.configuration = configuration
        self.endpoint = try EngineEndpoint(url: url, path: configuration.path, query: configuration.query)
        self.executor = configuration.handlerExecutor ?? .serial()
        self.timeline = Timeline(configuration.clock)
        var logger = configuration.logger
        logger[metadataKey: "socketio.url"] = "\(url.absoluteString)"
        self.logger = logger
        let version = configuration.version.first
        let reconnection = ReconnectionStateMachine(
            enabled: configuration.reconnection,
            maxAttempts: configuration.reconnectionAttempts,
            backoff: Backoff(
                minimum: configuration.reconnectionDelay,
                maximum: configuration.reconnectionDelayMax,
                jitter: configuration.randomizationFactor
            )
        )
        self.inner = NIOLockedValueBox(Inner(
            decoder: SocketPacketDecoder(version: version.socketIOVersion),
            version: version,
            reconnection: reconnection
        ))
        Self.live.add(self)
    }

    deinit {
        Self.live.remove(ObjectIdentifier(self))
    }

    /// The socket for `namespace`, made on first use; the same instance afterwards.
    ///
    /// - Parameters:
    ///   - namespace: the namespace, `/` by default (a missing leading slash is added).
    ///   - auth: the CONNECT auth payload, used when the socket is first made.
    public func socket(namespace: String = "/", auth: SocketAuth = .none) -> Socket {
        let namespace = namespace.hasPrefix("/") ? namespace : "/" + namespace
        return inner.withLockedValue { inner in
            if let socket = inner.sockets[namespace] { return socket }
            let socket = Socket(manager: self, namespace: namespace, auth: auth, version: inner.version.socketIOVersion)
            inner.sockets[namespace] = socket
            return socket
        }
    }

    /// The Engine.IO handshake of the current session, if one is open.
    public var handshake: EngineHandshake? {
        inner.withLockedValue { $0.engine }?.handshake
    }

    /// Disconnects every socket and closes the session.
    public func disconnect() {
        let sockets = inner.withLockedValue { Array($0.sockets.values) }
        for socket in sockets { socket.disconnect() }
        closeEngine()
    }

    /// Disconnects every socket and returns once the connection is closed, so everything emitted
    /// before has reached the server (use it before a process exits). Every async sequence
    /// obtained from the manager and its sockets before the call ends.
    ///
    /// Events emitted just before are not lost to a server that drops events read together with
    /// the DISCONNECT (socket.io's Node server does): the DISCONNECT waits until the server has
    /// read everything before it. Bounded: the wait for that confirmation takes at most 2 s.
    public func close() async {
        let (sockets, engine) = inner.withLockedValue { (Array($0.sockets.values), $0.engine) }
        for socket in sockets { socket.disconnect() }
        closeEngine()
        await engine?.closeAndWait()
        let observers = inner.withLockedValue { $0.observers.takeAll() }
        for observer in observers { observer.finish() }
        for socket in sockets { socket.finishStreams() }
    }

    /// The manager's events (`open`, `ping`, `close`, `error`) from now on, until ``close()``.
    public var events: AsyncStream<ManagerEvent> {
        observerStream(of: self, \.inner, \.observers)
    }

    func publish(_ event: ManagerEvent) {
        inner.withLockedValue { $0.observers.yield(event) }
    }

    /// Runs `work` on the handler executor after everything already queued there.
    public func runOnHandlerExecutor(_ work: @escaping @Sendable () -> Void) {
        executor.run(work)
    }

    // MARK: - For sockets

    var isEngineOpen: Bool {
        inner.withLockedValue { $0.engine?.isOpen ?? false }
    }

    /// The Engine.IO revision of the current (or last) session: with `.auto`, what was negotiated.
    public var engineIOVersion: EngineIOVersion { inner.withLockedValue { $0.version } }

    /// The Socket.IO revision of the current (or last) session.
    var socketIOVersion: SocketIOVersion { inner.withLockedValue { $0.version.socketIOVersion } }

    /// The transport carrying the session now, if one is open.
    public var transport: EngineTransportKind? {
        inner.withLockedValue { $0.engine }?.transportKind
    }

    /// Opens the engine session unless one exists (`version`: retry a refused v4 as v3).
    /// Returns the session's revision and sid when one is already open.
    @discardableResult
    func openEngine(version: EngineIOVersion? = nil) -> (SocketIOVersion, String)? {
        var alreadyOpen: (SocketIOVersion, String)?
        let engine: Engine? = inner.withLockedValue { inner in
            if let existing = inner.engine {
                if inner.wasOpen, let sid = existing.handshake?.sid { alreadyOpen = (inner.version.socketIOVersion, sid) }
                return nil
            }
            // A reconnection delay is running: its attempt opens the session (as socket.io does).
            if inner.reconnection.isWaiting { return nil }
            let version = version ?? configuration.version.first
            var transports = configuration.transports
            if configuration.rememberUpgrade && inner.lastSessionUpgraded && transports.contains(.websocket) {
                transports = [.websocket]
            }
            if configuration.proxy != nil { transports = transports.filter { $0 == .polling } }
            let httpClient = try? HTTPClients.client(trustRoots: configuration.trustRoots, proxy: configuration.proxy)
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
                httpClient: httpClient,
                clock: configuration.clock,
                logger: logger
            )
            inner.version = version
            inner.decoder = SocketPacketDecoder(version: version.socketIOVersion)
            inner.session += 1
            let session = inner.session
            let engine = Engine(configuration: config) { [weak self] event in
                self?.handle(event, session: session)
            }
            inner.engine = engine
            return engine
        }
        if let engine {
            logger.debug("opening Engine.IO session", metadata: ["socketio.version": "\(configuration.version)"])
            engine.open()
        }
        return alreadyOpen
    }

    /// Writes a packet on the open session. Returns `false` when there is none.
    ///
    /// With `afterPeerRead`, it goes out once the server has read everything written before
    /// (the namespace DISCONNECT: socket.io's Node server drops events it reads together with it).
    @discardableResult
    func write(_ packet: SocketPacket, afterPeerRead: Bool = false) -> Bool {
        let encoded = SocketPacketEncoder.encode(packet)
        guard let engine = inner.withLockedValue({ $0.engine }) else { return false }
        return engine.send(encoded.enginePackets, afterPeerRead: afterPeerRead)
    }

    /// Writes several packets in order, in one transport write.
    @discardableResult
    func write(_ packets: [SocketPacket]) -> Bool {
        guard !packets.isEmpty else { return true }
        guard let engine = inner.withLockedValue({ $0.engine }) else { return false }
        return engine.send(packets.flatMap { SocketPacketEncoder.encode($0).enginePackets })
    }

    /// Called by a socket that stopped wanting a connection: closes the engine if none wants one.
    func socketBecameInactive() {
        let anyActive = inner.withLockedValue { inner in inner.sockets.values.contains { $0.isActive } }
        if !anyActive { closeEngine() }
    }

    /// Closes the session on the app's behalf. Its own `closed` report is then stale and ignored,
    /// so the manager's `close` event is published here.
    private func closeEngine() {
        let (engine, wasOpen, timer) = inner.withLockedValue { inner in
            defer { inner.engine = nil; inner.wasOpen = false; inner.reconnectTimer = nil }
            inner.reconnection.stop()
            return (inner.engine, inner.wasOpen, inner.reconnectTimer)
        }
        timer?.cancel()
        engine?.close()
        if wasOpen { publish(.close(.ioClientDisconnect)) }
        // A socket that started connecting meanwhile hears of it rather than waiting forever.
        if engine != nil {
            let sockets = inner.withLockedValue { Array($0.sockets.values) }
            for socket in sockets { socket.engineClosed(.ioClientDisconnect) }
        }
    }

    // MARK: - Engine events

    private func handle(_ event: EngineEvent, session: Int) {
        let current = inner.withLockedValue { $0.session == session && $0.engine != nil }
        guard current else { return }
        switch event {
        case .opened(let handshake, let transport):
            guard let (sockets, version) = inner.withLockedValue({ inner -> ([Socket], EngineIOVersion)? in
                guard inner.session == session else { return nil }
                inner.wasOpen = true
                inner.lastSessionUpgraded = transport == .websocket
                return (Array(inner.sockets.values), inner.version)
            }) else { return }
            logger.info("connected", metadata: [
                "socketio.sid": "\(handshake.sid)", "socketio.version": "\(version)", "socketio.transport": "\(transport)",
            ])
            publish(.open)
            if let attempt = inner.withLockedValue({ $0.reconnection.opened() }) {
                logger.info("reconnected", metadata: ["socketio.attempt": "\(attempt)"])
                publish(.reconnect(attempt))
            }
            for socket in sockets { socket.engineOpened(version: version.socketIOVersion, sid: handshake.sid) }
        case .upgraded:
            inner.withLockedValue { $0.lastSessionUpgraded = true }
            logger.debug("upgraded to WebSocket")
            publish(.upgrade)
        case .heartbeat:
            publish(.ping)
        case .message(let packet):
            receive(packet)
        case .closed(.unsupportedVersion(let tried, let serverSpeaks, let detail)):
            guard let retry = inner.withLockedValue({ inner -> Bool? in
                guard inner.session == session else { return nil }
                inner.engine = nil
                return !inner.wasOpen && configuration.version == .auto && tried == .v4
            }) else { return }
            logger.debug("the server refused \(tried)", metadata: ["socketio.detail": "\(detail)"])
            if retry {
                openEngine(version: .v3)
                return
            }
            let server = serverSpeaks ?? (tried == .v4 ? .v3 : .v4)
            failSockets(.versionMismatch(client: tried, server: server))
        case .closed(.handshakeRefused(let body)):
            guard inner.withLockedValue({ inner -> Bool in
                guard inner.session == session else { return false }
                inner.engine = nil
                inner.reconnection.stop()
                return true
            }) else { return }
            let message = (try? JSONValue(parsing: body))?.stringValue ?? body
            failSockets(.connectError(message: message, data: nil))
        case .closed(let reason):
            logger.debug("Engine.IO session closed", metadata: ["socketio.reason": "\(reason)"])
            guard let (sockets, wasOpen) = inner.withLockedValue({ inner -> ([Socket], Bool)? in
                guard inner.session == session else { return nil }
                defer { inner.wasOpen = false }
                inner.engine = nil
                inner.decoder.reset()
                return (Array(inner.sockets.values), inner.wasOpen)
            }) else { return }
            let lost = DisconnectReason(reason)
            publish(wasOpen ? .close(lost) : .error(SocketIOError.connectionFailed(Socket.detail(of: lost)).description))
            for socket in sockets { socket.engineClosed(DisconnectReason(reason)) }
            reconnectIfWanted(after: reason)
        }
    }

    private func receive(_ message: EnginePacket) {
        let result: Result<(SocketPacket, Socket?)?, ProtocolError> = inner.withLockedValue { inner in
            do throws(ProtocolError) {
                let decoded: SocketPacket?
                switch message {
                case .message(let text): decoded = try inner.decoder.decode(text: text)
                case .binaryMessage(let data): decoded = try inner.decoder.decode(binary: data)
                case .open, .close, .ping, .pong, .upgrade, .noop: decoded = nil
                }
                guard let packet = decoded else { return .success(nil) }
                return .success((packet, inner.sockets[Self.namespaceName(packet.namespace)]))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(nil):
            return
        case .success(let (packet, socket)?):
            guard let socket else {
                logger.debug("packet for a namespace without a socket", metadata: ["socketio.nsp": "\(packet.namespace)"])
                return
            }
            socket.received(packet)
        case .failure(let error):
            logger.warning("closing: the server sent an invalid packet", metadata: ["socketio.error": "\(error)"])
            let engine = inner.withLockedValue { $0.engine }
            engine?.fail(.parseError(error.description))
        }
    }

    /// Tells every connecting socket that the session could not be opened (for good: no retry).
    private func failSockets(_ error: SocketIOError) {
        let sockets = inner.withLockedValue { inner in
            inner.decoder.reset()
            inner.wasOpen = false
            inner.reconnection.stop()
            return Array(inner.sockets.values)
        }
        publish(.error(error.description))
        for socket in sockets { socket.engineFailed(error) }
    }

    /// The namespace without a v4 query string (`/admin?token=1` → `/admin`).
    static func namespaceName(_ namespace: String) -> String {
        guard let query = namespace.firstIndex(of: "?") else { return namespace }
        return String(namespace[..<query])
    }
}
