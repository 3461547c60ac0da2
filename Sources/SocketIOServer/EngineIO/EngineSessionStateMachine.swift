/// One Engine.IO session's rules on the server, as a value type: which transport carries it,
/// the polling buffer, the upgrade to WebSocket, the heartbeat and closing.
///
/// The owner (``EngineSession``) feeds it inputs and performs the returned actions after the
/// transition, outside its lock: answering a held GET, writing to a WebSocket, arming a timer.
/// `Waiter` is a held GET (a continuation in production), `Socket` a WebSocket connection
/// (compared by identity); both are opaque here so every rule is tested without I/O.
///
/// Transports: `polling → upgrading → webSocket`, or `webSocket` from the start; `closing` is a
/// closed polling session that keeps its last packets for the client's next GET; `closed` is
/// terminal. Each timer slot carries a generation; a timer that fires with an old one is ignored.
struct EngineSessionStateMachine<Waiter, Socket: AnyObject> {
    typealias Timing = EngineTiming
    typealias TimerKind = EngineTimerKind
    typealias TimerArm = EngineTimerArm

    enum Transport {
        case polling(PollingBuffer<Waiter>)
        /// A WebSocket asked to take over; `probed` once its `2probe` was answered.
        case upgrading(PollingBuffer<Waiter>, probe: Socket, probed: Bool)
        case webSocket(Socket)
        /// Closed, but the last packets wait for the client's next GET.
        case closing(PollingBuffer<Waiter>)
        case closed
    }

    /// Everything a close asks the owner to do.
    struct CloseEffects {
        var reason: EngineCloseReason
        /// Answer the held GET with these frames (they end with `close`).
        var release: (waiter: Waiter, frames: [EngineFrame])?
        /// Close the active WebSocket, after writing these frames (a `close` packet, or nothing).
        var webSocket: (socket: Socket, frames: [EngineFrame])?
        /// Close a WebSocket that was probing for an upgrade.
        var probe: Socket?
        /// Keep the session registered until this timer fires (a lingering polling session);
        /// `nil` means the session is gone now.
        var linger: TimerArm?
    }

    let timing: Timing
    /// v4: the server pings and waits for pongs. v3: the client pings, the server answers and
    /// closes a session whose pings stop for `pingInterval + pingTimeout`.
    let version: EngineIOVersion
    var transport: Transport
    /// What carries the session's messages: polling until an upgrade completes (or WebSocket
    /// from the start); the last one once closed.
    var carrier: SocketIOServer.TransportKind
    private(set) var awaitingPong = false
    private var generations: [TimerKind: Int] = [:]

    init(polling limits: PollingLimits, timing: Timing, version: EngineIOVersion = .v4) {
        self.timing = timing
        self.version = version
        self.transport = .polling(PollingBuffer(limits: limits))
        self.carrier = .polling
    }

    init(webSocket socket: Socket, timing: Timing, version: EngineIOVersion = .v4) {
        self.timing = timing
        self.version = version
        self.transport = .webSocket(socket)
        self.carrier = .websocket
    }

    var isClosed: Bool {
        switch transport {
        case .closing, .closed: true
        case .polling, .upgrading, .webSocket: false
        }
    }

    /// Whether `socket` is the transport that carries the session's messages.
    func isActive(_ socket: Socket) -> Bool {
        if case .webSocket(let active) = transport { return active === socket }
        return false
    }

    /// Whether polling requests (POST bodies) may carry the session's messages.
    var acceptsPolling: Bool {
        switch transport {
        case .polling, .upgrading: true
        case .webSocket, .closing, .closed: false
        }
    }

    // MARK: - Heartbeat

    /// The session is open: the first ping is due after `pingInterval` (v3: the client's first
    /// ping, within `pingInterval + pingTimeout`).
    mutating func start() -> TimerArm {
        switch version {
        case .v4: arm(.heartbeat, after: timing.pingInterval)
        case .v3: arm(.heartbeat, after: timing.pingInterval + timing.pingTimeout)
        }
    }

    /// v3: the client pinged (the owner answers with a pong); its next ping is due within
    /// `pingInterval + pingTimeout`. `nil` on v4 (where a client ping is an error) or once closed.
    mutating func clientPinged() -> TimerArm? {
        guard version == .v3, !isClosed else { return nil }
        return arm(.heartbeat, after: timing.pingInterval + timing.pingTimeout)
    }

    enum HeartbeatAction {
        /// Send a ping; the pong is due before the armed timer fires.
        case sendPing(TimerArm)
        case close(CloseEffects)
        case none
    }

    /// The client answered a ping: the next one is due after `pingInterval`.
    mutating func pong() -> TimerArm? {
        guard awaitingPong, !isClosed else { return nil }
        awaitingPong = false
        return arm(.heartbeat, after: timing.pingInterval)
    }

    enum TimerAction {
        case heartbeat(HeartbeatAction)
        /// The upgrade did not complete in time: close the probing WebSocket, stay on polling.
        case abortUpgrade(Socket)
        /// The lingering session is over: unregister it.
        case finishLinger
        case none
    }

    mutating func timerFired(_ kind: TimerKind, generation: Int) -> TimerAction {
        guard generations[kind] == generation else { return .none }
        switch kind {
        case .heartbeat:
            guard !isClosed else { return .none }
            if awaitingPong || version == .v3 {
                return .heartbeat(close(.pingTimeout).map(HeartbeatAction.close) ?? .none)
            }
            awaitingPong = true
            return .heartbeat(.sendPing(arm(.heartbeat, after: timing.pingTimeout)))
        case .upgrade:
            guard case .upgrading(let buffer, let probe, _) = transport else { return .none }
            transport = .polling(buffer)
            return .abortUpgrade(probe)
        case .linger:
            guard case .closing = transport else { return .none }
            transport = .closed
            return .finishLinger
        }
    }

    // MARK: - Closing

    /// Closes the session; `nil` when it is already closed, lingering included: that close was
    /// reported, and its last packets still wait for the next GET (or the linger timer).
    mutating func close(_ reason: EngineCloseReason) -> CloseEffects? {
        var effects = CloseEffects(reason: reason)
        switch transport {
        case .polling(var buffer), .upgrading(var buffer, _, _):
            if case .upgrading(_, let probe, _) = transport { effects.probe = probe }
            transport = .closed  // first: the buffer is then the queue's one owner (not copied)
            let goodbye = reason.isServerInitiated ? [EngineFrame.close] : []
            if let waiter = buffer.takeWaiter() {
                // The client's own `close` releases its held GET with a noop, as the reference
                // server does; a server-side close answers it with what is queued and `close`,
                // a response at most (python-engineio drops a longer one): the rest waits for the
                // next GET, while the session lingers, or is dropped with a session that is gone.
                guard reason != .transportClose else {
                    effects.release = (waiter, [.noop])
                    return effects
                }
                var frames = buffer.takeResponse()
                if buffer.isEmpty && frames.count < buffer.limits.maxFramesPerResponse {
                    effects.release = (waiter, frames + [.close])
                } else if reason.lingers {
                    effects.release = (waiter, frames)
                    buffer.appendUnbounded(goodbye)
                    transport = .closing(buffer)
                    effects.linger = arm(.linger, after: timing.lingerTimeout)
                } else {
                    frames.removeLast(max(0, frames.count + 1 - max(1, buffer.limits.maxFramesPerResponse)))
                    effects.release = (waiter, frames + [.close])
                }
            } else if reason.lingers {
                buffer.appendUnbounded(goodbye)
                transport = .closing(buffer)
                effects.linger = arm(.linger, after: timing.lingerTimeout)
            }
        case .webSocket(let socket):
            effects.webSocket = (socket, reason.isServerInitiated ? [.close] : [])
            transport = .closed
        case .closing, .closed:
            return nil
        }
        return effects
    }

    /// The WebSocket `socket` ended on its own.
    mutating func webSocketEnded(_ socket: Socket, reason: EngineCloseReason) -> CloseEffects? {
        switch transport {
        case .webSocket(let active) where active === socket:
            return close(reason)
        case .upgrading(let buffer, let probe, _) where probe === socket:
            transport = .polling(buffer)
            bumpGeneration(.upgrade)
            return nil
        case .polling, .upgrading, .webSocket, .closing, .closed:
            return nil
        }
    }

    @discardableResult
    private mutating func bumpGeneration(_ kind: TimerKind) -> Int {
        let next = (generations[kind] ?? 0) + 1
        generations[kind] = next
        return next
    }

    mutating func arm(_ kind: TimerKind, after delay: Duration) -> TimerArm {
        TimerArm(kind: kind, delay: delay, generation: bumpGeneration(kind))
    }
}

/// The durations an Engine.IO session runs on.
struct EngineTiming: Sendable, Hashable {
    var pingInterval: Duration
    var pingTimeout: Duration
    var upgradeTimeout: Duration
    /// How long a closed polling session keeps its last packets for a GET.
    var lingerTimeout: Duration
}

/// The timers of one Engine.IO session.
enum EngineTimerKind: Sendable, Hashable, CaseIterable {
    case heartbeat
    case upgrade
    case linger
}

/// Arm the timer `kind` to fire after `delay`, tagged with `generation`.
struct EngineTimerArm: Sendable, Hashable {
    var kind: EngineTimerKind
    var delay: Duration
    var generation: Int
}

extension EngineSessionStateMachine: Sendable where Waiter: Sendable, Socket: Sendable {}
extension EngineSessionStateMachine.Transport: Sendable where Waiter: Sendable, Socket: Sendable {}
extension EngineSessionStateMachine.CloseEffects: Sendable where Waiter: Sendable, Socket: Sendable {}
