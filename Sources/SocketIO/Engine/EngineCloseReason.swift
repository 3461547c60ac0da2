/// Why an Engine.IO session ended.
public enum EngineCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// The app (or the socket layer on its behalf) closed the engine.
    case forcedClose
    /// No heartbeat within `pingInterval + pingTimeout` (v4), or no pong within `pingTimeout` (v3).
    case pingTimeout
    /// The server closed the session or the connection ended.
    case transportClose
    /// The connection failed: a network error, an HTTP error status, a refused WebSocket handshake.
    case transportError(String)
    /// The peer sent bytes that are not valid Engine.IO or Socket.IO.
    case parseError(String)
    /// The server does not speak the requested Engine.IO revision (detected on the handshake).
    case unsupportedVersion(tried: EngineIOVersion, serverSpeaks: EngineIOVersion?, detail: String)
    /// The server refused the handshake itself (HTTP 401; how Socket.IO v4 servers refuse `/`).
    case handshakeRefused(String)

    public var description: String {
        switch self {
        case .forcedClose: "forced close"
        case .pingTimeout: "ping timeout"
        case .transportClose: "transport close"
        case .transportError(let detail): "transport error: \(detail)"
        case .parseError(let detail): "parse error: \(detail)"
        case .unsupportedVersion(let tried, _, let detail): "the server does not speak \(tried): \(detail)"
        case .handshakeRefused(let detail): "handshake refused: \(detail)"
        }
    }
}
