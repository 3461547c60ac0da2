import SwitchboardCore
public import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import WebSocketClient
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
    /// The server's cookies, across the manager's sessions (``Configuration/storesCookies``).
    let cookies: CookieJar?
    let executor: HandlerExecutor
    /// The executor, fed one burst of events at a time.
    let handlers: HandlerBursts
    /// The process's client metrics (swift-metrics).
    let metrics = ClientMetrics()
    /// The event loop every WebSocket of this manager runs on.
    let eventLoop: any EventLoop
    private let loopExecutor: EventLoopTaskExecutor
    /// The configured clock as a timeline (ack deadlines).
    let timeline: Timeline
    let logger: Logger

    /// Everything the manager keeps (see ``transition(_:)``).
    let inner: NIOLockedValueBox<ManagerState>

    /// One event (or a read) of the manager's state under its lock: each call site runs one of
    /// ``ManagerState``'s methods or one machine transition, and does what it hands back after.
    func transition<T>(_ event: (inout ManagerState) -> T) -> T {
        inner.withLockedValue(event)
    }

    /// A deadline on the manager's timeline (an event-loop timer on the real clock): the
    /// reconnection delay, a suspension's grace.
    struct Timer: Sendable {
        let cancel: @Sendable () -> Void
    }

    /// Runs `action` after `delay` on the manager's timeline (with the manager, if it is still there).
    func schedule(after delay: Duration, _ action: @escaping @Sendable (Manager) -> Void) -> Timer {
        Timer(cancel: timeline.schedule(delay) { [weak self] in
            guard let self else { return }
            action(self)
        })
    }

    /// A manager for the server at `url` (`http`, `https`, `ws` or `wss`).
    public init(url: URL, configuration: Configuration = Configuration()) throws(SocketIOError) {
        self.url = url
        self.configuration = configuration
        self.endpoint = try EngineEndpoint(url: url, path: configuration.path, query: configuration.query)
        self.executor = configuration.handlerExecutor ?? .serial()
        self.cookies = configuration.storesCookies ? CookieJar() : nil
        // The platform's loops: Network.framework's on Apple platforms (as the polling requests'), sockets elsewhere.
        let eventLoop = TransportStack.defaultGroup.next()
        self.eventLoop = eventLoop
        self.loopExecutor = EventLoopTaskExecutor(eventLoop)
        self.handlers = HandlerBursts(executor: executor, eventLoop: eventLoop)
        // Deadlines (ack timeouts, one per emitWithAck) as the event loop's timers, not a task
        // sleeping per ack: no thread woken to start and to cancel each one.
        self.timeline = Timeline(configuration.clock, scheduler: Timeline.eventLoopScheduler(eventLoop))
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
        self.inner = NIOLockedValueBox(ManagerState(
            decoder: SocketPacketDecoder(version: version.socketIOVersion),
            machine: ManagerStateMachine(
                version: version, retriesAsV3: configuration.version == .auto, reconnection: reconnection
            )
        ))
        Self.live.add(self)
    }

    /// The thread this manager's WebSocket reads and writes on, as a task executor. Run the code
    /// that emits and awaits acknowledgements with it preferred —
    /// `await withTaskExecutorPreference(manager.taskExecutor) { … }` — and an `emit` writes
    /// without a hop to another thread, and an acknowledgement resumes the caller on the thread
    /// that received it: the fewest context switches (see the README's performance notes). The
    /// code then shares that thread with the connection's I/O: keep it from blocking. Long-polling's
    /// requests run on the same loop.
    public var taskExecutor: any TaskExecutor { loopExecutor }

    deinit {
        Self.live.remove(ObjectIdentifier(self))
        transition { $0.networkWatch?.cancel() }
    }

    /// The namespace ``socket(namespace:auth:)`` opens when given none: the one the URL's path
    /// names (`http://host:3000/chat` → `/chat`, as socket.io's `io(url)`), else `/`.
    public var defaultNamespace: String { SocketNamespace.named(by: url) ?? "/" }

    /// The socket for `namespace`, made on first use; the same instance afterwards.
    ///
    /// - Parameters:
    ///   - namespace: the namespace (a missing leading slash is added); by default the one the
    ///     URL's path names, else `/` (``defaultNamespace``). A manager multiplexes namespaces,
    ///     so one given here is opened whatever the URL's path says.
    ///   - auth: the CONNECT auth payload, used when the socket is first made.
    public func socket(namespace: String? = nil, auth: SocketAuth = .none) -> Socket {
        let namespace = namespace.map(SocketNamespace.normalized) ?? defaultNamespace
        return transition { state in
            state.socket(namespace) { Socket(manager: self, namespace: namespace, auth: auth, version: $0) }
        }
    }

    /// The Engine.IO handshake of the current session, if one is open.
    public var handshake: EngineHandshake? {
        transition { $0.engine }?.handshake
    }

    /// Disconnects every socket and closes the session.
    public func disconnect() {
        let sockets = transition { $0.sockets.all }
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
        let (sockets, engine) = transition { ($0.sockets.all, $0.engine) }
        for socket in sockets { socket.disconnect() }
        closeEngine()
        // The sockets no longer keep each other and the manager alive (see `SocketTable`).
        transition { $0.sockets.letGoAll() }
        await engine?.closeAndWait()
        let observers = transition { $0.observers.takeAll() }
        for observer in observers { observer.finish() }
        for socket in sockets { socket.finishStreams() }
    }

    /// The manager's events (`open`, `ping`, `close`, `error`) from now on, until ``close()``.
    public var events: AsyncStream<ManagerEvent> {
        observerStream(of: self, \.inner, \.observers)
    }

    func publish(_ event: ManagerEvent) {
        metrics.record(event)
        transition { $0.observers.yield(event) }
    }

    /// Runs `work` on the handler executor after everything already queued there.
    public func runOnHandlerExecutor(_ work: @escaping @Sendable () -> Void) {
        handlers.run(work)
    }

    // MARK: - For sockets

    var isEngineOpen: Bool {
        transition { $0.engine?.isOpen ?? false }
    }

    /// The Engine.IO revision of the current (or last) session: with `.auto`, what was negotiated.
    public var engineIOVersion: EngineIOVersion { transition { $0.machine.version } }

    /// The Socket.IO revision of the current (or last) session.
    var socketIOVersion: SocketIOVersion { transition { $0.machine.version.socketIOVersion } }

    /// The transport carrying the session now, if one is open: the one it opened on, WebSocket
    /// once the manager has heard of the upgrade (the `upgrade` event comes with it).
    public var transport: EngineTransportKind? {
        transition { $0.engine == nil ? nil : $0.machine.sessionTransport }
    }

    /// Writes a packet on the open session. Returns `false` when there is none.
    ///
    /// With `afterPeerRead`, it goes out once the server has read everything written before
    /// (the namespace DISCONNECT: socket.io's Node server drops events it reads together with it).
    @discardableResult
    func write(_ packet: SocketPacket, afterPeerRead: Bool = false) -> Bool {
        let encoded = SocketPacketEncoder.encode(packet)
        guard let engine = transition({ $0.engine }) else { return false }
        return engine.send(encoded.enginePackets, afterPeerRead: afterPeerRead)
    }

    /// Writes several packets in order, in one transport write.
    @discardableResult
    func write(_ packets: [SocketPacket]) -> Bool {
        guard !packets.isEmpty else { return true }
        guard let engine = transition({ $0.engine }) else { return false }
        return engine.send(packets.flatMap { SocketPacketEncoder.encode($0).enginePackets })
    }

    /// Called by a socket that wants a connection: the manager holds it (see ``SocketTable``).
    func socketWantsConnection(_ socket: Socket) {
        transition { $0.sockets.hold(socket) }
    }

    /// Called by a socket that stopped wanting a connection: the manager lets go of it, and
    /// closes the engine if no socket wants one.
    func socketBecameInactive(_ socket: Socket) {
        let anyActive = transition { $0.letGo(socket) }
        if !anyActive { closeEngine() }
    }

    /// Closes the session on the app's behalf. Its own `closed` report is then stale and ignored,
    /// so the manager's `close` event is published here.
    private func closeEngine() {
        let (engine, action, timers, watch) = transition { $0.close() }
        for timer in timers { timer?.cancel() }
        watch?.cancel()
        engine?.close()
        guard case .close(let wasOpen) = action else { return }
        if wasOpen { publish(.close(.ioClientDisconnect)) }
        // A socket that started connecting meanwhile hears of it rather than waiting forever.
        let sockets = transition { $0.sockets.all }
        for socket in sockets { socket.engineClosed(.ioClientDisconnect) }
    }
}
