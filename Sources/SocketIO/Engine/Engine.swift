import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol

/// What an engine reports to the socket layer, in order.
enum EngineEvent: Sendable {
    case opened(EngineHandshake)
    /// A heartbeat: a server ping (v4) or the pong to ours (v3).
    case heartbeat
    /// A `message` (text or binary) to decode as Socket.IO.
    case message(EnginePacket)
    case closed(EngineCloseReason)
}

/// One Engine.IO session: owns the transport and the single heartbeat timer, and drives
/// ``EngineStateMachine``. Transitions happen under a lock; writes, timers and reports happen
/// after it is released.
final class Engine: Sendable {
    struct Configuration: Sendable {
        var endpoint: EngineEndpoint
        var version: EngineIOVersion
        var headers: [(String, String)]
        var connectTimeout: Duration
        var maxInboundMessageSize: Int
        var clock: any Clock<Duration>
    }

    private struct Inner: Sendable {
        var machine: EngineStateMachine
        var transport: (any EngineTransport)?
        /// The transport after the session ended, so a caller can wait for its socket to close.
        var retired: (any EngineTransport)?
        var timer: Task<Void, Never>?
    }

    let configuration: Configuration
    private let onEvent: @Sendable (EngineEvent) -> Void
    private let inner: NIOLockedValueBox<Inner>

    init(configuration: Configuration, onEvent: @escaping @Sendable (EngineEvent) -> Void) {
        self.configuration = configuration
        self.onEvent = onEvent
        self.inner = NIOLockedValueBox(Inner(machine: EngineStateMachine(version: configuration.version)))
    }

    /// The handshake, once open.
    var handshake: EngineHandshake? {
        inner.withLockedValue { inner in
            if case .open(let handshake, _) = inner.machine.state { return handshake }
            return nil
        }
    }

    var isOpen: Bool { inner.withLockedValue { $0.machine.isOpen } }

    /// Opens the session (WebSocket only for now).
    func open() {
        let action = inner.withLockedValue { $0.machine.start() }
        switch action {
        case .none:
            return
        case .openTransport(let generation):
            let config = configuration
            let uri = config.endpoint.requestURI(transport: "websocket", version: config.version, sid: nil)
            let transport = WebSocketTransport(
                endpoint: config.endpoint,
                uri: uri,
                headers: config.headers,
                version: config.version,
                maxMessageSize: config.maxInboundMessageSize
            ) { [weak self] event in
                self?.handle(event)
            }
            let stale = inner.withLockedValue { inner in
                if inner.machine.state == .closed { return true }
                inner.transport = transport
                return false
            }
            if stale {
                transport.close()
                return
            }
            armTimer(milliseconds: Self.milliseconds(config.connectTimeout), generation: generation)
        }
    }

    /// Writes packets if the session is open; returns `false` (writing nothing) otherwise.
    @discardableResult
    func send(_ packets: [EnginePacket]) -> Bool {
        let transport: (any EngineTransport)? = inner.withLockedValue { inner in
            inner.machine.isOpen ? inner.transport : nil
        }
        guard let transport else { return false }
        transport.send(packets)
        return true
    }

    /// Closes the session and returns once its connection is closed.
    func closeAndWait() async {
        close()
        let transport = inner.withLockedValue { $0.transport ?? $0.retired }
        await transport?.waitUntilClosed()
    }

    /// Closes the session on the app's behalf; reports `.closed(.forcedClose)` if it was live.
    func close() {
        let (action, transport, timer) = inner.withLockedValue { inner in
            let action = inner.machine.close()
            defer { inner.retired = inner.transport ?? inner.retired; inner.transport = nil; inner.timer = nil }
            return (action, inner.transport, inner.timer)
        }
        timer?.cancel()
        switch action {
        case .none:
            transport?.close()
        case .close(let reason, let sendClosePacket):
            if sendClosePacket { transport?.send([.close]) }
            transport?.close()
            onEvent(.closed(reason))
        }
    }

    /// Ends the session because the layer above found it broken (for example a parse error).
    func fail(_ reason: EngineCloseReason) {
        let action = inner.withLockedValue { $0.machine.transportEnded(reason) }
        switch action {
        case .none:
            return
        case .close(let reason, _):
            finish(reason, sendClosePacket: true)
        }
    }

    // MARK: - Transport events

    private func handle(_ event: TransportEvent) {
        switch event {
        case .packet(let packet):
            let action = inner.withLockedValue { $0.machine.received(packet) }
            perform(action)
        case .ended(let reason):
            let action = inner.withLockedValue { $0.machine.transportEnded(reason) }
            switch action {
            case .none:
                return
            case .close(let reason, _):
                finish(reason, sendClosePacket: false)
            }
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
            onEvent(.opened(handshake))
        case .sendPong(let data, let milliseconds, let generation):
            armTimer(milliseconds: milliseconds, generation: generation)
            currentTransport()?.send([.pong(data)])
            onEvent(.heartbeat)
        case .armTimer(let milliseconds, let generation):
            armTimer(milliseconds: milliseconds, generation: generation)
            onEvent(.heartbeat)
        case .close(let reason, let sendClosePacket):
            finish(reason, sendClosePacket: sendClosePacket)
        }
    }

    private func timerFired(generation: Int) {
        let action = inner.withLockedValue { $0.machine.timerFired(generation: generation) }
        switch action {
        case .none:
            return
        case .sendPing(let milliseconds, let generation):
            armTimer(milliseconds: milliseconds, generation: generation)
            currentTransport()?.send([.ping("")])
        case .close(let reason):
            finish(reason, sendClosePacket: false)
        }
    }

    /// Tears the session down after the state machine decided it is over.
    private func finish(_ reason: EngineCloseReason, sendClosePacket: Bool) {
        let (transport, timer) = inner.withLockedValue { inner in
            defer { inner.retired = inner.transport ?? inner.retired; inner.transport = nil; inner.timer = nil }
            return (inner.transport, inner.timer)
        }
        timer?.cancel()
        if sendClosePacket { transport?.send([.close]) }
        transport?.close()
        onEvent(.closed(reason))
    }

    private func currentTransport() -> (any EngineTransport)? {
        inner.withLockedValue { $0.transport }
    }

    private func armTimer(milliseconds: Int, generation: Int) {
        let clock = configuration.clock
        let task = Task { [weak self] in
            do {
                try await clock.sleep(for: .milliseconds(milliseconds))
            } catch {
                return
            }
            self?.timerFired(generation: generation)
        }
        let previous = inner.withLockedValue { inner in
            defer { inner.timer = task }
            return inner.timer
        }
        previous?.cancel()
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
