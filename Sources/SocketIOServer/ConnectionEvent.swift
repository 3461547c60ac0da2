/// What happens to connections, one event per line for a log (``SocketIOServer/onConnectionEvent(_:)``).
public enum ConnectionEvent: Sendable, Hashable, CustomStringConvertible {
    /// An Engine.IO session opened.
    case sessionOpened(sid: String, transport: SocketIOServer.TransportKind, address: String?)
    /// A polling session moved to WebSocket.
    case sessionUpgraded(sid: String)
    /// An Engine.IO session closed.
    case sessionClosed(sid: String, reason: String)
    /// A socket joined a namespace (`recovered` when it got its previous session back).
    case socketConnected(namespace: String, id: String, sid: String, recovered: Bool)
    /// A namespace refused a socket.
    case socketRefused(namespace: String, sid: String, message: String)
    /// A socket left its namespace.
    case socketDisconnected(namespace: String, id: String, reason: ServerDisconnectReason)
    /// A plain WebSocket connection opened or closed.
    case plainWebSocketOpened(id: String, address: String?)
    /// A plain WebSocket connection closed.
    case plainWebSocketClosed(id: String)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .sessionOpened(let sid, let transport, let address):
            "engine \(sid) open over \(transport.rawValue)" + (address.map { " from \($0)" } ?? "")
        case .sessionUpgraded(let sid): "engine \(sid) upgraded to websocket"
        case .sessionClosed(let sid, let reason): "engine \(sid) closed: \(reason)"
        case .socketConnected(let namespace, let id, let sid, let recovered):
            "\(namespace) \(id) connected (engine \(sid))" + (recovered ? ", recovered" : "")
        case .socketRefused(let namespace, let sid, let message): "\(namespace) refused engine \(sid): \(message)"
        case .socketDisconnected(let namespace, let id, let reason): "\(namespace) \(id) disconnected: \(reason)"
        case .plainWebSocketOpened(let id, let address): "websocket \(id) open" + (address.map { " from \($0)" } ?? "")
        case .plainWebSocketClosed(let id): "websocket \(id) closed"
        }
    }
}
