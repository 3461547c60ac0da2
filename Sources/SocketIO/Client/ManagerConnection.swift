import SwitchboardCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import WebSocketClient
import SocketIOProtocol

/// What a ``Manager`` does behind its public API: one Engine.IO session after another over the
/// manager's lifetime, the reconnection loop, the network path it follows, and the packets
/// between the engine and the namespaces (``NamespaceConnection``). The sockets' connections
/// and the engine talk to it; the app talks to the ``Manager``.
///
/// All its state is one value (``ManagerState``) under one lock; each event is one
/// ``transition(_:)``, and what it hands back — open or close an engine, a timer, a write, an
/// event to publish — is done after the lock is released.
final class ManagerConnection: Sendable {
    /// The server URL.
    let url: URL
    /// The configuration the manager was made with.
    let configuration: Manager.Configuration
    let endpoint: EngineEndpoint
    /// The server's cookies, across the manager's sessions (``Manager/Configuration/storesCookies``).
    let cookies: CookieJar?
    /// The app's handler executor, fed one burst of events at a time.
    let handlers: HandlerBursts
    /// The process's client metrics (swift-metrics).
    let metrics = ClientMetrics()
    /// The event loop every WebSocket of this manager runs on.
    let eventLoop: any EventLoop
    /// The configured clock as a timeline (ack deadlines).
    let timeline: Timeline
    let logger: Logger

    /// Everything the manager keeps (see ``transition(_:)``).
    let inner: NIOLockedValueBox<ManagerState>

    init(url: URL, configuration: Manager.Configuration, endpoint: EngineEndpoint, eventLoop: any EventLoop) {
        self.url = url
        self.configuration = configuration
        self.endpoint = endpoint
        self.cookies = configuration.storesCookies ? CookieJar() : nil
        self.eventLoop = eventLoop
        self.handlers = HandlerBursts(executor: configuration.handlerExecutor ?? .serial(), eventLoop: eventLoop)
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
    }

    deinit {
        transition { $0.networkWatch?.cancel() }
    }

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

    /// Runs `action` after `delay` on the manager's timeline (with the connection, if it is still there).
    func schedule(after delay: Duration, _ action: @escaping @Sendable (ManagerConnection) -> Void) -> Timer {
        Timer(cancel: timeline.schedule(delay) { [weak self] in
            guard let self else { return }
            action(self)
        })
    }

    func publish(_ event: ManagerEvent) {
        metrics.record(event)
        transition { $0.observers.yield(event) }
    }

    // MARK: - For sockets

    /// The open session's Engine.IO sid, `nil` while none is open.
    var openEngineSID: String? {
        transition { state in
            guard state.engine?.isOpen == true, case .open(_, let sid) = state.machine.session else { return nil }
            return sid
        }
    }

    /// The Socket.IO revision of the current (or last) session.
    var socketIOVersion: SocketIOVersion { transition { $0.machine.version.socketIOVersion } }

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

    /// The answer to the server's event `id` on `namespace`: its first call writes the ack.
    func ackResponder(namespace: String, id: Int) -> AckResponder {
        let once = OnceFlag()
        return AckResponder { items in
            guard once.claim() else { return false }
            self.write(.ack(items, namespace: namespace, id: id))
            return true
        }
    }

    /// Called by a socket that wants a connection: the manager holds it (see ``SocketTable``).
    func socketWantsConnection(_ socket: NamespaceConnection) {
        transition { $0.sockets.hold(socket) }
    }

    /// Called by a socket that stopped wanting a connection: the manager lets go of it, and
    /// closes the engine if no socket wants one.
    func socketBecameInactive(_ socket: NamespaceConnection) {
        let anyActive = transition { $0.letGo(socket) }
        if !anyActive { closeEngine() }
    }

    /// Called by a socket whose session ended under it with no reconnection to wait for: the
    /// manager lets go of it (the engine is gone already; a suspension is left as it is).
    func socketEnded(_ socket: NamespaceConnection) {
        transition { if !socket.isActive { $0.sockets.letGo(socket) } }
    }

    /// Closes the session on the app's behalf. Its own `closed` report is then stale and ignored,
    /// so the manager's `close` event is published here.
    func closeEngine() {
        let (engine, action, timers, watch) = transition { $0.close() }
        for timer in timers { timer?.cancel() }
        watch?.cancel()
        engine?.close()
        guard case .close(let wasOpen) = action else { return }
        if wasOpen { publish(.close(.ioClientDisconnect)) }
        // A socket that started connecting meanwhile hears of it rather than waiting forever.
        let sockets = transition { $0.sockets.all }
        for socket in sockets { socket.connection.engineClosed(.ioClientDisconnect) }
    }
}
