/// Why an Engine.IO session ended — on the client (``Manager``'s `close` event) and on the server
/// alike. Cases that only one side meets say so.
public enum EngineCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// The app (or the socket layer on its behalf) closed the session: the client's `close()`,
    /// the server's `disconnect(close: true)` or connect timeout.
    case forcedClose
    /// No heartbeat in time: no ping within `pingInterval + pingTimeout` (client, v4), no pong
    /// within `pingTimeout` of a ping (server, and client on v3).
    case pingTimeout
    /// The other side closed the session or the connection ended.
    case transportClose
    /// The connection failed (a network error, an HTTP error status, a refused WebSocket
    /// handshake), or the peer broke a rule of the transport (a duplicate poll, a queue it did
    /// not drain).
    case transportError(String)
    /// The peer sent bytes that are not valid Engine.IO or Socket.IO.
    case parseError(String)
    /// Client only: the server does not speak the requested Engine.IO revision (detected on the
    /// handshake).
    case unsupportedVersion(tried: EngineIOVersion, serverSpeaks: EngineIOVersion?, detail: String)
    /// Client only: the server refused the handshake itself (HTTP 401; how Socket.IO v4 servers
    /// refuse `/`).
    case handshakeRefused(String)
    /// Server only: the server is stopping.
    case serverShuttingDown

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .forcedClose: "forced close"
        case .pingTimeout: "ping timeout"
        case .transportClose: "transport close"
        case .transportError(let detail): "transport error: \(detail)"
        case .parseError(let detail): "parse error: \(detail)"
        case .unsupportedVersion(let tried, _, let detail): "the server does not speak \(tried): \(detail)"
        case .handshakeRefused(let detail): "handshake refused: \(detail)"
        case .serverShuttingDown: "server shutting down"
        }
    }
}
