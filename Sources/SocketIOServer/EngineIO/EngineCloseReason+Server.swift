import SocketIOProtocol

extension EngineCloseReason {
    /// Whether the server tells the client goodbye (a `close` packet, flushed queues): it does
    /// when the server decided to close, not when the transport is already gone.
    var isServerInitiated: Bool {
        switch self {
        case .forcedClose, .serverShuttingDown, .pingTimeout, .parseError: true
        case .transportClose, .transportError, .unsupportedVersion, .handshakeRefused: false
        }
    }

    /// Whether a closed polling session keeps its last packets (ending with `close`) for the
    /// client's next GET, so the client learns why. A session that missed its pong, or sent a
    /// packet that does not parse, is forgotten at once, as the reference server does (the
    /// engine.io-protocol suite checks both): its next GET is answered 400 (unknown session).
    var lingers: Bool {
        switch self {
        case .forcedClose, .serverShuttingDown: true
        case .pingTimeout, .parseError, .transportClose, .transportError, .unsupportedVersion, .handshakeRefused: false
        }
    }
}
