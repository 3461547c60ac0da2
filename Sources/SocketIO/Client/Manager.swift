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
    let logger: Logger

    private struct Inner: Sendable {
        var engine: Engine?
        var sockets: [String: Socket] = [:]
        var decoder: SocketPacketDecoder
        var observers: [Int: AsyncStream<ManagerEvent>.Continuation] = [:]
        var nextObserverID = 0
        var wasOpen = false
        /// Numbers engine sessions, so a late event from an old one is ignored.
        var session = 0
    }

    private let inner: NIOLockedValueBox<Inner>

    /// A manager for the server at `url` (`http`, `https`, `ws` or `wss`).
    public init(url: URL, configuration: Configuration = Configuration()) throws(SocketIOError) {
        self.url = url
        self.configuration = configuration
        self.endpoint = try EngineEndpoint(url: url, path: configuration.path, query: configuration.query)
        self.executor = configuration.handlerExecutor ?? .serial()
        var logger = configuration.logger
        logger[metadataKey: "socketio.url"] = "\(url.absoluteString)"
        self.logger = logger
        self.inner = NIOLockedValueBox(Inner(decoder: SocketPacketDecoder(version: configuration.version.socketIOVersion)))
    }

    /// The socket for `namespace`, made on first use; the same instance afterwards.
    ///
    /// - Parameter auth: the CONNECT auth payload, used when the socket is first made.
    public func socket(namespace: String = "/", auth: SocketAuth = .none) -> Socket {
        let namespace = namespace.hasPrefix("/") ? namespace : "/" + namespace
        return inner.withLockedValue { inner in
            if let socket = inner.sockets[namespace] { return socket }
            let socket = Socket(manager: self, namespace: namespace, auth: auth)
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
    /// before has been written (use it before a process exits).
    public func close() async {
        let (sockets, engine) = inner.withLockedValue { (Array($0.sockets.values), $0.engine) }
        for socket in sockets { socket.disconnect() }
        closeEngine()
        await engine?.closeAndWait()
    }

    /// The manager's events (`open`, `ping`, `close`, `error`) from now on.
    public var events: AsyncStream<ManagerEvent> {
        let (stream, continuation) = AsyncStream<ManagerEvent>.makeStream()
        let id = inner.withLockedValue { inner in
            inner.nextObserverID += 1
            inner.observers[inner.nextObserverID] = continuation
            return inner.nextObserverID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.inner.withLockedValue { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    private func publish(_ event: ManagerEvent) {
        let observers = inner.withLockedValue { Array($0.observers.values) }
        for observer in observers { observer.yield(event) }
    }

    /// Runs `work` on the handler executor after everything already queued there.
    public func runOnHandlerExecutor(_ work: @escaping @Sendable () -> Void) {
        executor.run(work)
    }

    // MARK: - For sockets

    var isEngineOpen: Bool {
        inner.withLockedValue { $0.engine?.isOpen ?? false }
    }

    /// Opens the engine session unless one exists.
    func openEngine() {
        let engine: Engine? = inner.withLockedValue { inner in
            guard inner.engine == nil else { return nil }
            let config = Engine.Configuration(
                endpoint: endpoint,
                version: configuration.version,
                headers: configuration.extraHeaders.map { ($0.name, $0.value) },
                connectTimeout: configuration.connectTimeout,
                maxInboundMessageSize: configuration.maxInboundMessageSize,
                clock: configuration.clock
            )
            inner.session += 1
            let session = inner.session
            let engine = Engine(configuration: config) { [weak self] event in
                self?.handle(event, session: session)
            }
            inner.engine = engine
            inner.decoder.reset()
            return engine
        }
        if let engine {
            logger.debug("opening Engine.IO session", metadata: ["socketio.version": "\(configuration.version)"])
            engine.open()
        }
    }

    /// Writes a packet on the open session. Returns `false` when there is none.
    @discardableResult
    func write(_ packet: SocketPacket) -> Bool {
        let encoded = SocketPacketEncoder.encode(packet)
        guard let engine = inner.withLockedValue({ $0.engine }) else { return false }
        return engine.send(encoded.enginePackets)
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
        let (engine, wasOpen) = inner.withLockedValue { inner in
            defer { inner.engine = nil; inner.wasOpen = false }
            return (inner.engine, inner.wasOpen)
        }
        engine?.close()
        if wasOpen { publish(.close(.ioClientDisconnect)) }
    }

    // MARK: - Engine events

    private func handle(_ event: EngineEvent, session: Int) {
        let current = inner.withLockedValue { $0.session == session && $0.engine != nil }
        guard current else { return }
        switch event {
        case .opened(let handshake):
            logger.debug("Engine.IO session open", metadata: ["socketio.sid": "\(handshake.sid)"])
            let sockets = inner.withLockedValue { inner in
                inner.wasOpen = true
                return Array(inner.sockets.values)
            }
            publish(.open)
            for socket in sockets { socket.engineOpened() }
        case .heartbeat:
            publish(.ping)
        case .message(let packet):
            receive(packet)
        case .closed(let reason):
            logger.debug("Engine.IO session closed", metadata: ["socketio.reason": "\(reason)"])
            let (sockets, wasOpen) = inner.withLockedValue { inner in
                defer { inner.wasOpen = false }
                inner.engine = nil
                inner.decoder.reset()
                return (Array(inner.sockets.values), inner.wasOpen)
            }
            publish(wasOpen ? .close(DisconnectReason(reason)) : .error("\(reason)"))
            for socket in sockets { socket.engineClosed(DisconnectReason(reason)) }
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

    /// The namespace without a v4 query string (`/admin?token=1` → `/admin`).
    static func namespaceName(_ namespace: String) -> String {
        guard let query = namespace.firstIndex(of: "?") else { return namespace }
        return String(namespace[..<query])
    }
}
