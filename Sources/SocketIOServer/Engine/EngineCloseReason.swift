/// Why an Engine.IO session ended, on the server.
enum EngineCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// The client closed the transport, or sent `close`.
    case transportClose
    /// The transport failed, or the client broke a rule of the transport (a duplicate poll, a
    /// ping in the wrong direction, an outbound queue it did not drain).
    case transportError(String)
    /// No pong within `pingTimeout` of a ping.
    case pingTimeout
    /// The client sent bytes that are not Engine.IO or Socket.IO.
    case parseError(String)
    /// The server app closed the session (`disconnect(close: true)`, connect timeout).
    case forcedClose
    /// The server is stopping.
    case serverShuttingDown

    /// Whether the server tells the client goodbye (a `close` packet, flushed queues): it does
    /// when the server decided to close, not when the transport is already gone.
    var isServerInitiated: Bool {
        switch self {
        case .forcedClose, .serverShuttingDown, .pingTimeout, .parseError: true
        case .transportClose, .transportError: false
        }
    }

    /// Whether a closed polling session keeps its last packets (ending with `close`) for the
    /// client's next GET, so the client learns why. A session that missed its pong is forgotten
    /// at once, as the reference server does: its next GET is answered 400 (unknown session).
    var lingers: Bool {
        switch self {
        case .forcedClose, .serverShuttingDown, .parseError: true
        case .pingTimeout, .transportClose, .transportError: false
        }
    }

    var description: String {
        switch self {
        case .transportClose: "transport close"
        case .transportError(let detail): "transport error (\(detail))"
        case .pingTimeout: "ping timeout"
        case .parseError(let detail): "parse error (\(detail))"
        case .forcedClose: "forced close"
        case .serverShuttingDown: "server shutting down"
        }
    }
}
