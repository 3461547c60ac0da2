import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SocketIOProtocol

/// One Engine.IO session on the server: owns its transport (polling buffer or WebSocket), its
/// timers, and drives ``EngineSessionStateMachine``.
///
/// Transitions happen under the session's lock. Answering GETs, closing sockets, arming timers,
/// writing and telling the Socket.IO layer happen after it is released — frames are only
/// queued on the active WebSocket's writer under the lock, so packets of every namespace keep
/// the order in which the state machine accepted them (the queue does no I/O and never calls
/// back). ``send(_:)`` never calls back into its caller either: a close it causes is reported
/// from a new task.
final class EngineSession: Sendable {
    typealias Waiter = CheckedContinuation<PollOutcome, Never>
    typealias Machine = EngineSessionStateMachine<Waiter, WebSocketWriter>

    /// What a GET is answered with.
    enum PollOutcome: Sendable {
        case frames([EngineFrame])
        /// The session does not take polling requests (anymore): 400.
        case rejected
    }

    private struct Inner {
        var machine: Machine
        /// The application, from ``start(client:)`` until the session closes.
        var client: (any EngineApplication)?
    }

    let sid: String
    /// The Engine.IO path the session was opened on (`/socket.io/`, or a raw Engine.IO mount).
    let mount: String
    /// The Engine.IO protocol the client speaks (v3 only with `allowEIO3`).
    let version: EngineIOVersion
    /// v3 `b64=1`: the client takes binary as base64 text (`b4…`), on polling and WebSocket.
    let base64: Bool
    /// The request that opened the session.
    let request: RequestInfo
    let environment: ServerEnvironment
    let logger: Logger
    private let registry: SessionRegistry
    private let inner: NIOLockedValueBox<Inner>
    private let timers: TimerSlots<EngineTimerKind>

    /// A session on polling, or (with `webSocket`) a WebSocket-only session.
    init(
        sid: String,
        mount: String,
        version: EngineIOVersion = .v4,
        base64: Bool = false,
        webSocket: WebSocketWriter?,
        request: RequestInfo,
        environment: ServerEnvironment,
        registry: SessionRegistry
    ) {
        self.sid = sid
        self.mount = mount
        self.version = version
        self.base64 = base64
        self.request = request
        self.environment = environment
        self.registry = registry
        var logger = environment.logger
        logger[metadataKey: "socketio.sid"] = "\(sid)"
        self.logger = logger
        let machine: Machine = if let webSocket {
            Machine(webSocket: webSocket, timing: environment.timing, version: version)
        } else {
            Machine(polling: environment.pollingLimits, timing: environment.timing, version: version)
        }
        self.inner = NIOLockedValueBox(Inner(machine: machine))
        self.timers = TimerSlots(clock: environment.clock)
    }

    /// Connects the application (the Socket.IO layer, or a raw Engine.IO socket) and starts
    /// the heartbeat.
    func start(client: any EngineApplication) {
        let arm = inner.withLockedValue { inner in
            inner.client = client
            return inner.machine.start()
        }
        self.arm(arm)
    }

    /// One input to the machine (or a read of it), under the lock; what it returns is done
    /// after.
    private func transition<T>(_ input: (inout Machine) -> T) -> T {
        inner.withLockedValue { input(&$0.machine) }
    }

    var isClosed: Bool { transition { $0.isClosed } }

    /// The session's transport and what it holds, one line (for diagnostics; never parsed).
    var diagnostics: String { transition { $0.diagnostics } }

    /// The transport carrying the session (the last one, once closed).
    var currentTransport: SocketIOServer.TransportKind { transition { $0.carrier } }

    /// Whether a WebSocket may start an upgrade (the session is on polling, not upgrading).
    var canUpgrade: Bool {
        transition { machine in
            if case .polling = machine.transport { return true }
            return false
        }
    }

    // MARK: - Sending

    /// Queues frames for the client and starts writing them. Returns `false` when the session
    /// is closed or overflowed.
    @discardableResult
    func send(_ frames: [EngineFrame]) -> Bool {
        let (accepted, followUp) = enqueue(frames)
        followUp?.perform()
        return accepted
    }

    /// Queues frames for the client without writing: an owner that keeps its order under its
    /// own lock (``SocketOutbox``) calls this under it and performs the ``SendFollowUp`` after.
    /// `accepted` is `false` when the session is closed or overflowed.
    func enqueue(_ frames: [EngineFrame]) -> (accepted: Bool, followUp: SendFollowUp?) {
        let (action, written): (Machine.SendAction, (accepted: Bool, flush: WebSocketWriter.Flush?)) = transition { machine in
            let action = machine.send(frames)
            if case .write(let writer, let frames) = action { return (action, writer.enqueue(webSocketFrames(frames))) }
            return (action, (true, nil))
        }
        switch action {
        case .queued:
            return (true, nil)
        case .write(_, let frames):
            environment.metrics.sent(frames.reduce(0) { $0 + $1.size }, over: .websocket)
            // A writer that overflowed or whose connection is gone refuses: the session hears
            // of it from the writer (`webSocketEnded`), the caller at once.
            return (written.accepted, written.flush.map { SendFollowUp(work: .flush($0)) })
        case .respond(let waiter, let frames):
            return (true, SendFollowUp(work: .respond(waiter, frames)))
        case .close(let effects):
            return (false, SendFollowUp(work: .close(self, effects)))
        case .dropped:
            return (false, nil)
        }
    }

    /// Frames as this session's WebSocket carries them: v4 as they are; v3 binary with its
    /// type byte (`0x04` + bytes), or as `b4` + base64 text for a `b64=1` client.
    func webSocketFrames(_ frames: [EngineFrame]) -> [EngineFrame] {
        guard version == .v3, frames.contains(where: { $0.kind == .binary }) else { return frames }
        return frames.map { frame in
            guard frame.kind == .binary else { return frame }
            if base64 { return .text("b4" + Data(frame.bytes.readableBytesView).base64EncodedString()) }
            var bytes = ByteBuffer()
            bytes.reserveCapacity(frame.size + 1)
            bytes.writeInteger(UInt8(4))
            var payload = frame.bytes
            bytes.writeBuffer(&payload)
            return EngineFrame(kind: .binary, bytes: bytes)
        }
    }

    // MARK: - Closing

    /// Closes the session (no-op when closed).
    func close(_ reason: EngineCloseReason) {
        guard let effects = transition({ $0.close(reason) }) else { return }
        perform(effects)
    }

    /// The WebSocket `writer` ended; closes the session if it was its transport.
    func webSocketEnded(_ writer: WebSocketWriter, reason: EngineCloseReason) {
        let effects = transition { $0.webSocketEnded(writer, reason: reason) }
        if let effects { perform(effects) }
    }

    func perform(_ effects: Machine.CloseEffects) {
        timers.cancelAll()
        if let linger = effects.linger { arm(linger) } else { registry.remove(sid) }
        if let (waiter, frames) = effects.release { waiter.resume(returning: .frames(frames)) }
        if let (writer, frames) = effects.webSocket { writer.close(after: frames) }
        effects.probe?.close()
        let client = inner.withLockedValue { inner in
            defer { inner.client = nil }
            return inner.client
        }
        logger.debug("Engine.IO session closed", metadata: ["socketio.reason": "\(effects.reason)"])
        environment.events.emit(.sessionClosed(sid: sid, reason: effects.reason.description))
        client?.engineClosed(effects.reason)
    }

    // MARK: - Transitions for the transport extensions

    /// Whether a GET is held now.
    var holdsPoll: Bool {
        transition { machine in
            switch machine.transport {
            case .polling(let buffer), .upgrading(let buffer, _, _): buffer.waiter != nil
            case .webSocket, .closing, .closed: false
            }
        }
    }

    func inner(poll waiter: Waiter) -> Machine.PollAction {
        transition { $0.poll(waiter) }
    }

    func innerPollConnectionClosed(held: Int) -> Machine.CloseEffects? {
        transition { $0.pollConnectionClosed(held: held) }
    }

    func innerBeginPost() -> Machine.PostAction {
        transition { $0.beginPost() }
    }

    func innerEndPost() {
        transition { $0.endPost() }
    }

    /// A lingering session delivered its last packets.
    func finishLinger() {
        timers.cancelAll()
        registry.remove(sid)
    }

    // MARK: - Timers

    private func arm(_ arm: EngineTimerArm) {
        timers.arm(arm.kind, after: arm.delay) { [self] in
            timerFired(arm.kind, generation: arm.generation)
        }
    }

    private func timerFired(_ kind: EngineTimerKind, generation: Int) {
        let action = transition { $0.timerFired(kind, generation: generation) }
        switch action {
        case .heartbeat(.sendPing(let deadline)):
            arm(deadline)
            send([.ping])
        case .heartbeat(.close(let effects)):
            perform(effects)
        case .abortUpgrade(let probe):
            logger.debug("upgrade timed out")
            probe.close()
        case .finishLinger:
            registry.remove(sid)
        case .heartbeat(.none), .none:
            return
        }
    }

    // MARK: - Receiving

    /// The application, if `writer` (or polling, when `nil`) may carry messages now.
    /// A probing WebSocket that sends a message abandons the upgrade.
    func messageTarget(from writer: WebSocketWriter?) -> (any EngineApplication)? {
        let (client, failedProbe): ((any EngineApplication)?, Bool) = inner.withLockedValue { inner in
            if let writer {
                if inner.machine.isActive(writer) { return (inner.client, false) }
                return (nil, inner.machine.probeFailed(writer))
            }
            return (inner.machine.acceptsPolling ? inner.client : nil, false)
        }
        if failedProbe { writer?.close() }
        return client
    }

    /// Handles a control packet (anything but a message) from polling or `writer`.
    func control(_ packet: EnginePacket, from writer: WebSocketWriter?) {
        switch packet {
        case .pong:
            guard version == .v4 else {
                close(.transportError("invalid heartbeat direction"))
                return
            }
            if let arm = transition({ $0.pong() }) { self.arm(arm) }
        case .ping(let data):
            if let writer, data == "probe" {
                probe(from: writer)
                return
            }
            // Engine.IO v3: the client pings and the server answers; v4: only the server
            // pings (the JS server closes the session).
            guard let arm = transition({ $0.clientPinged() }) else {
                close(.transportError("invalid heartbeat direction"))
                return
            }
            self.arm(arm)
            send([.text("3" + data)])
        case .upgrade:
            guard let writer else { return }
            upgrade(to: writer)
        case .close:
            close(.transportClose)
        case .message, .binaryMessage, .open, .noop:
            return
        }
    }

    private func probe(from writer: WebSocketWriter) {
        switch transition({ $0.probed(by: writer) }) {
        case .answer(let writer, let release):
            writer.send([.probeAnswer])
            release?.resume(returning: .frames([.noop]))
        case .refuse:
            writer.close()
        }
    }

    private func upgrade(to writer: WebSocketWriter) {
        let (action, flush): (Machine.UpgradeAction, WebSocketWriter.Flush?) = transition { machine in
            let action = machine.upgraded(by: writer)
            guard case .upgraded(let writer, let pending, _) = action else { return (action, nil) }
            // Queued under the lock: no later send overtakes what polling still held.
            return (action, writer.enqueue(webSocketFrames(pending)).flush)
        }
        flush?.start()
        switch action {
        case .upgraded(_, _, let release):
            timers.cancel(.upgrade)
            release?.resume(returning: .frames([.noop]))
            logger.debug("upgraded to WebSocket")
            environment.events.emit(.sessionUpgraded(sid: sid))
        case .refuse:
            writer.close()
        }
    }

    /// A WebSocket with this session's sid opened; returns whether it may probe.
    func upgradeRequested(by writer: WebSocketWriter) -> Bool {
        guard let arm = transition({ $0.upgradeRequested(by: writer) }) else { return false }
        self.arm(arm)
        return true
    }
}
