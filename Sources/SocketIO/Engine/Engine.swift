import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SocketIOProtocol
import SwitchboardCore
import WebSocketClient

/// What an engine reports to the socket layer, in order.
enum EngineEvent: Sendable {
    case opened(EngineHandshake, transport: EngineTransportKind)
    /// A heartbeat: a server ping (v4) or the pong to ours (v3).
    case heartbeat
    /// A `message` (text or binary) to decode as Socket.IO.
    case message(EnginePacket)
    /// The session moved from polling to WebSocket.
    case upgraded
    case closed(EngineCloseReason)
}

/// One Engine.IO session: owns its transports (the active one and, during an upgrade, the
/// WebSocket probe) and the single heartbeat timer, and drives ``EngineStateMachine`` and
/// ``UpgradeStateMachine``. Transitions happen under a lock; writes, timers and reports happen
/// after it is released.
final class Engine: Sendable {
    struct Configuration: Sendable {
        var endpoint: EngineEndpoint
        var version: EngineIOVersion
        /// The first opens the session; `.websocket` later in the list is the upgrade target.
        var transports: [EngineTransportKind]
        var upgrade: Bool
        var headers: [(String, String)]
        var connectTimeout: Duration
        var probeTimeout: Duration = .seconds(10)
        var maxInboundMessageSize: Int
        var maxPacketsPerRequest: Int
        var timestampRequests: Bool
        var trustRoots: TrustRoots
        /// The HTTP proxy polling requests go through.
        var proxy: HTTPProxy?
        /// The server's cookies: sent with every request, polling responses' `Set-Cookie` kept.
        var cookies: CookieJar? = nil
        var clock: any Clock<Duration>
        var logger: Logger
        /// The event loop the WebSocket transports run on (the manager's).
        var eventLoop: (any EventLoop)? = nil
        /// Keep-alive and, on Apple platforms, the paths the WebSocket may use.
        var network = NetworkSettings()
    }

    let configuration: Configuration
    let onEvent: @Sendable (EngineEvent) -> Void
    /// Everything the engine keeps (see ``transition(_:)``).
    private let state: NIOLockedValueBox<EngineState>
    /// The heartbeat timer's clock: the event loop's timers with the real clock (no task
    /// sleeping per connection), a sleeping task with a test clock.
    let timeline: Timeline

    init(configuration: Configuration, onEvent: @escaping @Sendable (EngineEvent) -> Void) {
        self.configuration = configuration
        self.onEvent = onEvent
        self.state = NIOLockedValueBox(EngineState(version: configuration.version))
        self.timeline = Timeline(configuration.clock, scheduler: configuration.eventLoop.map(Timeline.eventLoopScheduler))
    }

    /// One event (or a read) of the engine's state, under its lock: each call site runs one
    /// of ``EngineState``'s methods, and does what it hands back after.
    func transition<T>(_ event: (inout EngineState) -> T) -> T {
        state.withLockedValue(event)
    }

    /// The handshake, once open.
    var handshake: EngineHandshake? { transition { $0.handshake } }

    var isOpen: Bool { transition { $0.machine.isOpen } }

    /// The transport carrying the session now.
    var transportKind: EngineTransportKind? { transition { $0.kind } }

    /// Opens the session on the first configured transport.
    func open() {
        let kind = configuration.transports.first ?? .websocket
        guard let (generation, id) = transition({ $0.startOpening(on: kind) }) else { return }
        // Arm the open timeout before the transport exists, so its events cannot overtake it.
        armTimer(milliseconds: Int(configuration.connectTimeout.wholeMilliseconds), generation: generation)
        let made: any EngineTransport
        do {
            made = try makeTransport(kind, sid: nil, id: id)
        } catch {
            transportEnded(.transportError("\(error)"), from: id)
            return
        }
        // Anything sent before the transport was installed was held: queued first.
        guard let installed = transition({ $0.install(made, id: id) }) else {
            made.close()
            return
        }
        installed.write?.start()
        // Started only now that it is installed: its handshake (and the session's `open`)
        // cannot be reported before the engine knows its transport. (Started in its
        // initialiser, a fast handshake raced the installation: a CONNECT sent meanwhile was
        // held, the upgrade found no polling transport and dropped what was held.)
        made.start()
    }

    /// Writes packets if the session is open (holding them while an upgrade pauses polling);
    /// returns `false`, writing nothing, otherwise.
    ///
    /// With `afterPeerRead`, the packets go out once the server has read everything written
    /// before them (see ``EngineTransport/enqueue(_:afterPeerRead:)``).
    @discardableResult
    func send(_ packets: [EnginePacket], afterPeerRead: Bool = false) -> Bool {
        // The packets are queued on the transport under the engine lock (transports only take
        // their own locks and never call back), so no send can overtake another across a
        // transport switch; the write itself starts after the lock is released.
        // A heartbeat deadline that passed while the process was suspended is acted on first
        // (close with `ping timeout`), so nothing is written into a dead connection and the
        // caller keeps the packets for the next session (socket.io checks before each emit).
        let outcome = transition { $0.send(packets, afterPeerRead: afterPeerRead) }
        outcome.write?.start()
        if let overdue = outcome.overdue {
            timerFired(generation: overdue)
            // Closed now (v4), or a v3 ping went out and its new timer is not due: try once more.
            let stillDue = transition { $0.isStillDue(overdue) }
            return stillDue ? false : send(packets, afterPeerRead: afterPeerRead)
        }
        if outcome.sent { configuration.logger.trace("sent", metadata: ["engineio.packets": "\(packets)"]) }
        return outcome.sent
    }

    /// Closes the session and returns once its connection is closed.
    func closeAndWait() async {
        close()
        let transport = transition { $0.transport ?? $0.retired }
        await transport?.waitUntilClosed()
    }

    /// Closes the session on the app's behalf; reports `.closed(.forcedClose)` if it was live.
    func close() {
        let action = transition { $0.machine.close() }
        switch action {
        case .none:
            let (transport, probe, _) = detach()
            probe?.close()
            transport?.close()
        case .close(let reason, let sendClosePacket):
            finish(reason, sendClosePacket: sendClosePacket)
        }
    }

    /// Ends the session because the layer above found it broken (for example a parse error).
    func fail(_ reason: EngineCloseReason) {
        let action = transition { $0.machine.transportEnded(reason) }
        switch action {
        case .none:
            return
        case .close(let reason, _):
            finish(reason, sendClosePacket: true)
        }
    }

    // MARK: - Transports

    /// A WebSocket transport of this session (`sid`; none for a WebSocket-only handshake), its
    /// events routed as transport `id`: the session's first transport or the upgrade's probe.
    func makeWebSocket(sid: String?, id: Int) -> WebSocketTransport {
        let config = configuration
        let uri = config.endpoint.requestURI(transport: "websocket", version: config.version, sid: sid)
        // The upgrade carries the cookies polling got (a sticky balancer routes it with them).
        let headers = config.headers + (config.cookies?.header.map { [("Cookie", $0)] } ?? [])
        return WebSocketTransport(
            endpoint: config.endpoint, uri: uri, handshake: sid == nil, headers: headers, version: config.version,
            maxMessageSize: config.maxInboundMessageSize, trustRoots: config.trustRoots, network: config.network,
            eventLoop: config.eventLoop
        ) { [weak self] event in
            // Routed by id: for a probe, as a probe until the switch, the session's transport after it.
            self?.handle(event, from: id)
        }
    }

    private func makeTransport(_ kind: EngineTransportKind, sid: String?, id: Int) throws -> any EngineTransport {
        let config = configuration
        let handler: @Sendable (TransportEvent) -> Void = { [weak self] event in self?.handle(event, from: id) }
        switch kind {
        case .websocket:
            return makeWebSocket(sid: sid, id: id)
        case .polling:
            // Its own connections (the held GET and the POST), on the manager's loop, closed
            // when the transport finishes.
            let eventLoop = config.eventLoop ?? TransportStack.defaultGroup.next()
            let pool = HTTP1ConnectionPool(configuration: .init(
                address: config.endpoint.address, trustRoots: config.trustRoots,
                stack: TransportStack(connectTimeout: .seconds(20), settings: config.network),
                proxy: config.proxy.map { ($0.host, $0.port) },
                eventLoop: eventLoop, cookies: config.cookies))
            let options = PollingTransport.Options(
                endpoint: config.endpoint, version: config.version, headers: config.headers,
                maxMessageSize: config.maxInboundMessageSize, maxPacketsPerRequest: config.maxPacketsPerRequest,
                timestampRequests: config.timestampRequests, client: pool,
                executor: EventLoopTaskExecutor(eventLoop), sid: sid)
            return PollingTransport(options: options, handler: handler)
        }
    }

    /// One event of transport `id`. For the active transport a packet's transition happens in
    /// the same lock section that finds the transport's role: one lock per packet.
    func handle(_ event: TransportEvent, from id: Int) {
        switch transition({ $0.step(for: event, from: id) }) {
        case .stale:
            return
        case .probe:
            handleProbeEvent(event, from: id)
        case .received(let packet, let action):
            configuration.logger.trace("received", metadata: ["engineio.packet": "\(packet)"])
            perform(action)
        case .ended:
            if case .ended(let reason) = event { transportEnded(reason, from: id) }
        }
    }

    private func transportEnded(_ reason: EngineCloseReason, from id: Int) {
        configuration.logger.debug("transport ended", metadata: ["engineio.reason": "\(reason)"])
        let action = transition { $0.transportEnded(reason, from: id) }
        switch action {
        case .none:
            return
        case .close(let reason, _):
            finish(reason, sendClosePacket: false)
        }
    }

    private func perform(_ action: EngineStateMachine.ReceiveAction) {
        switch action {
        case .none:
            return
        case .deliver(let packet):
            onEvent(.message(packet))
        case .opened(let handshake, let milliseconds, let generation):
            armTimer(milliseconds: milliseconds, generation: generation)
            let kind = transportKind ?? .websocket
            onEvent(.opened(handshake, transport: kind))
            if kind == .polling { maybeStartUpgrade(handshake) }
        case .sendPong(let data, let milliseconds, let generation):
            armTimer(milliseconds: milliseconds, generation: generation)
            send([.pong(data)])
            onEvent(.heartbeat)
        case .armTimer(let milliseconds, let generation):
            armTimer(milliseconds: milliseconds, generation: generation)
            onEvent(.heartbeat)
        case .close(let reason, let sendClosePacket):
            finish(reason, sendClosePacket: sendClosePacket)
        }
    }

    private func timerFired(generation: Int) {
        let action = transition { $0.machine.timerFired(generation: generation) }
        switch action {
        case .none:
            return
        case .sendPing(let milliseconds, let generation):
            armTimer(milliseconds: milliseconds, generation: generation)
            send([.ping("")])
        case .close(let reason):
            finish(reason, sendClosePacket: false)
        }
    }

    /// Tears the session down after the state machine decided it is over.
    private func finish(_ reason: EngineCloseReason, sendClosePacket: Bool) {
        configuration.logger.debug("session closed", metadata: ["engineio.reason": "\(reason)"])
        let (transport, probe, held) = detach()
        // What was emitted while polling paused for the upgrade goes before our close.
        if sendClosePacket { transport?.send(held + [.close]) }
        probe?.close()
        transport?.close()
        onEvent(.closed(reason))
    }

    private func detach() -> ((any EngineTransport)?, WebSocketTransport?, [EnginePacket]) {
        let (transport, probe, timer, held) = transition { $0.detach() }
        timer?.cancel()
        return (transport, probe, held)
    }

    func armTimer(milliseconds: Int, generation: Int) {
        let clock = configuration.clock
        let isDue = Self.deadline(on: clock, after: .milliseconds(milliseconds))
        let cancel = timeline.schedule(.milliseconds(milliseconds)) { [weak self] in
            self?.timerFired(generation: generation)
        }
        // Keep the newest generation: two threads may arm at once, and an older timer must not
        // replace a newer one (the state machine ignores stale generations, but a lost newer
        // timer would never fire).
        let cancelled = transition { $0.keep((generation, cancel, isDue)) }
        cancelled?()
    }

    /// Whether `duration` from now has passed on `clock`, asked later.
    private static func deadline<C: Clock>(on clock: C, after duration: C.Duration) -> @Sendable () -> Bool {
        let deadline = clock.now.advanced(by: duration)
        return { clock.now >= deadline }
    }
}
