import SocketIOProtocol

/// The polling → WebSocket upgrade, as a value type.
///
/// `idle → probing` (WebSocket opened with the session's sid, `2probe` sent) `→ pausing`
/// (`3probe` came back; polling finishes the GET and POST in flight while new packets are
/// held) `→ upgraded` (`5` sent on the WebSocket, held packets flushed after it). A probe that
/// fails — an error, a close, any other answer, or no answer in time — is dropped and the
/// session stays on polling (`failed`, no further attempt in this session).
struct UpgradeStateMachine: Sendable, Equatable {
    enum State: Sendable, Equatable {
        case idle
        case probing(probe: Int)
        case pausing(probe: Int)
        case upgraded
        case failed
    }

    private(set) var state: State = .idle

    /// Whether outgoing packets must be held (polling is pausing).
    var holdsPackets: Bool {
        if case .pausing = state { return true }
        return false
    }

    enum StartAction: Equatable { case openProbe, none }

    mutating func start(probe: Int) -> StartAction {
        guard case .idle = state else { return .none }
        state = .probing(probe: probe)
        return .openProbe
    }

    enum ProbeAction: Equatable {
        /// `3probe` arrived: pause polling.
        case pausePolling
        /// The probe failed: close it and stay on polling.
        case abandonProbe
        case none
    }

    /// A packet arrived on the probe transport.
    mutating func probeReceived(_ packet: EnginePacket, from probe: Int) -> ProbeAction {
        guard case .probing(let current) = state, current == probe else { return .none }
        if case .pong("probe") = packet {
            state = .pausing(probe: probe)
            return .pausePolling
        }
        state = .failed
        return .abandonProbe
    }

    /// The probe ended (error, close) or its timer fired before it answered.
    mutating func probeFailed(_ probe: Int) -> ProbeAction {
        switch state {
        case .probing(let current) where current == probe, .pausing(let current) where current == probe:
            state = .failed
            return .abandonProbe
        case .idle, .probing, .pausing, .upgraded, .failed:
            return .none
        }
    }

    enum PausedAction: Equatable {
        /// Send `5` on the probe, make it the transport, flush what was held.
        case switchTo(probe: Int)
        case none
    }

    /// Polling has no request in flight any more.
    mutating func pollingPaused() -> PausedAction {
        guard case .pausing(let probe) = state else { return .none }
        state = .upgraded
        return .switchTo(probe: probe)
    }
}
