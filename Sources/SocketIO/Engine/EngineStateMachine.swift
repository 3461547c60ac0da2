import SocketIOProtocol

/// The Engine.IO session's rules, as a value type: handshake, heartbeat and closing.
///
/// The owner (``Engine``) feeds it inputs and performs the returned actions after the
/// transition: writing packets, arming the single heartbeat timer, reporting to the socket
/// layer. Nothing here does I/O or reads a clock, so every rule is tested event by event.
///
/// States: `idle → opening → open → closed`; `closed` is terminal for this session (a
/// reconnection makes a new engine session). The one timer slot means "open timeout" while
/// opening, and "heartbeat deadline" (v4) or "next ping / pong deadline" (v3) while open. Each
/// arming carries a generation; a timer that fires with an old generation is ignored.
struct EngineStateMachine: Sendable {
    enum State: Sendable, Equatable {
        case idle
        case opening
        case open(EngineHandshake, heartbeat: Heartbeat)
        case closed
    }

    /// What the heartbeat timer means while open.
    enum Heartbeat: Sendable, Equatable {
        /// v4: the server must ping before the deadline.
        case awaitingServerPing
        /// v3: we ping when the timer fires.
        case waitingToPing
        /// v3: we pinged; the pong must arrive before the timer fires.
        case awaitingPong
    }

    let version: EngineIOVersion
    private(set) var state: State = .idle
    private(set) var timerGeneration = 0

    init(version: EngineIOVersion) {
        self.version = version
    }

    var isOpen: Bool {
        if case .open = state { return true }
        return false
    }

    // MARK: - Inputs and actions

    enum StartAction: Equatable {
        /// Open the transport and arm the open timeout.
        case openTransport(timerGeneration: Int)
        case none
    }

    /// The app wants a session.
    mutating func start() -> StartAction {
        switch state {
        case .idle:
            state = .opening
            return .openTransport(timerGeneration: nextGeneration())
        case .opening, .open, .closed:
            return .none
        }
    }

    enum ReceiveAction: Equatable {
        /// Hand this message to the socket layer.
        case deliver(EnginePacket)
        /// The session is open; report it and arm the timer for `after` milliseconds.
        case opened(EngineHandshake, armTimerMilliseconds: Int, timerGeneration: Int)
        /// v4: answer the server's ping and re-arm the deadline.
        case sendPong(String, armTimerMilliseconds: Int, timerGeneration: Int)
        /// v3: the pong arrived; arm the timer for the next ping.
        case armTimer(milliseconds: Int, timerGeneration: Int)
        /// End the session: close the transport (after sending `close` when asked) and report.
        case close(EngineCloseReason, sendClosePacket: Bool)
        case none
    }

    /// A packet arrived from the transport.
    mutating func received(_ packet: EnginePacket) -> ReceiveAction {
        switch state {
        case .idle, .closed:
            return .none
        case .opening:
            guard case .open(let json) = packet else {
                state = .closed
                return .close(.parseError("expected the open packet, got type \(packet.typeDigit)"), sendClosePacket: false)
            }
            let handshake: EngineHandshake
            do {
                handshake = try EngineHandshake(json: json)
            } catch {
                state = .closed
                return .close(.parseError(error.description), sendClosePacket: false)
            }
            switch version {
            case .v4:
                state = .open(handshake, heartbeat: .awaitingServerPing)
                return .opened(handshake, armTimerMilliseconds: handshake.pingInterval + handshake.pingTimeout,
                               timerGeneration: nextGeneration())
            case .v3:
                state = .open(handshake, heartbeat: .waitingToPing)
                return .opened(handshake, armTimerMilliseconds: handshake.pingInterval, timerGeneration: nextGeneration())
            }
        case .open(let handshake, let heartbeat):
            switch packet {
            case .message, .binaryMessage:
                return .deliver(packet)
            case .ping(let data):
                // v4 only: on v3 a server ping is the wrong direction and is ignored.
                guard version == .v4 else { return .none }
                return .sendPong(data, armTimerMilliseconds: handshake.pingInterval + handshake.pingTimeout,
                                 timerGeneration: nextGeneration())
            case .pong:
                guard version == .v3, heartbeat == .awaitingPong else { return .none }
                state = .open(handshake, heartbeat: .waitingToPing)
                return .armTimer(milliseconds: handshake.pingInterval, timerGeneration: nextGeneration())
            case .close:
                state = .closed
                return .close(.transportClose, sendClosePacket: false)
            case .open, .upgrade, .noop:
                return .none
            }
        }
    }

    enum TimerAction: Equatable {
        /// v3: send a ping and arm the pong deadline.
        case sendPing(armTimerMilliseconds: Int, timerGeneration: Int)
        case close(EngineCloseReason)
        case none
    }

    /// The timer armed with `generation` fired.
    mutating func timerFired(generation: Int) -> TimerAction {
        guard generation == timerGeneration else { return .none }
        switch state {
        case .idle, .closed:
            return .none
        case .opening:
            state = .closed
            return .close(.transportError("timeout"))
        case .open(let handshake, let heartbeat):
            switch heartbeat {
            case .awaitingServerPing, .awaitingPong:
                state = .closed
                return .close(.pingTimeout)
            case .waitingToPing:
                state = .open(handshake, heartbeat: .awaitingPong)
                return .sendPing(armTimerMilliseconds: handshake.pingTimeout, timerGeneration: nextGeneration())
            }
        }
    }

    enum CloseAction: Equatable {
        /// Stop the transport and report the reason to the socket layer.
        case close(EngineCloseReason, sendClosePacket: Bool)
        case none
    }

    /// The transport ended on its own (network drop, server close, HTTP error).
    mutating func transportEnded(_ reason: EngineCloseReason) -> CloseAction {
        switch state {
        case .idle, .closed:
            return .none
        case .opening, .open:
            state = .closed
            return .close(reason, sendClosePacket: false)
        }
    }

    /// The app closes the session.
    mutating func close() -> CloseAction {
        switch state {
        case .idle:
            state = .closed
            return .none
        case .closed:
            return .none
        case .opening:
            state = .closed
            return .close(.forcedClose, sendClosePacket: false)
        case .open:
            state = .closed
            return .close(.forcedClose, sendClosePacket: true)
        }
    }

    private mutating func nextGeneration() -> Int {
        timerGeneration += 1
        return timerGeneration
    }
}
