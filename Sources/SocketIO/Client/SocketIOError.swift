/// Everything that can go wrong for a Socket.IO client, each case saying what happened.
public enum SocketIOError: Error, Sendable, Hashable {
    /// The server URL is not an `http`, `https`, `ws` or `wss` URL with a host.
    case invalidURL(String)
    /// An extra header cannot be sent: its name is not an HTTP token, or its value has a control
    /// character; the text says which header.
    case invalidHeader(String)
    /// The URL's path names one namespace (`http://host/chat` → `/chat`, as in socket.io's
    /// `io(url)`) and the `namespace` argument another: give it one way.
    case namespaceConflict(SocketNamespace.Conflict)
    /// The server refused the namespace connection (CONNECT_ERROR): its `message`, and `data` if any.
    case connectError(message: String, data: JSONValue?)
    /// The connection could not be established or was lost before the namespace connected.
    case connectionFailed(String)
    /// No acknowledgement arrived within the timeout.
    case ackTimeout
    /// The socket disconnected while the acknowledgement was pending; the reason says why.
    case disconnected(DisconnectReason)
    /// The event name is reserved by the protocol (`connect`, `disconnect`, …) and cannot be emitted.
    case reservedEventName(String)
    /// A payload could not be converted to or from JSON (Codable payloads).
    case payloadConversion(String)
    /// The socket is not connected and was asked to do something that needs a connection.
    case notConnected
    /// The server does not speak the Engine.IO revision the client was told to use.
    case versionMismatch(client: EngineIOVersion, server: EngineIOVersion)
    /// The manager made `attempts` reconnection attempts (its `reconnectionAttempts` limit) and
    /// stopped; call `connect()` to start again.
    case reconnectFailed(attempts: Int)
}

extension SocketIOError: CustomStringConvertible {
    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid Socket.IO server URL: \(url)"
        case .invalidHeader(let why): "invalid header: \(why)"
        case .namespaceConflict(let conflict): conflict.description
        case .connectError(let message, let data):
            data.map { "connect_error: \(message) \($0.jsonString)" } ?? "connect_error: \(message)"
        case .connectionFailed(let why): "connection failed: \(why)"
        case .ackTimeout: "operation has timed out"
        case .disconnected(let reason): "socket has been disconnected (\(reason))"
        case .reservedEventName(let name): "\"\(name)\" is a reserved event name"
        case .payloadConversion(let why): "payload conversion failed: \(why)"
        case .notConnected: "socket is not connected"
        case .reconnectFailed(let attempts): "reconnection failed after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        case .versionMismatch(let client, let server):
            "version mismatch: the client speaks \(client) (\(client.socketIOVersion)), the server speaks \(server) (\(server.socketIOVersion)); connect with version .auto or .\(server == .v3 ? "v3" : "v4")"
        }
    }
}

/// Why a socket disconnected, with socket.io's reason strings.
public enum DisconnectReason: Sendable, Hashable, CustomStringConvertible {
    /// The server removed the socket from its namespace; no automatic reconnection.
    case ioServerDisconnect
    /// The app called `disconnect()`; no automatic reconnection.
    case ioClientDisconnect
    /// No heartbeat in time.
    case pingTimeout
    /// The connection was closed (by the server or the network).
    case transportClose
    /// The connection failed (network or HTTP error), with detail.
    case transportError(String)
    /// The server sent something that is not valid Socket.IO, with detail.
    case parseError(String)

    /// The reason as socket.io spells it (`"io server disconnect"`, `"ping timeout"`, …).
    public var description: String {
        switch self {
        case .ioServerDisconnect: "io server disconnect"
        case .ioClientDisconnect: "io client disconnect"
        case .pingTimeout: "ping timeout"
        case .transportClose: "transport close"
        case .transportError: "transport error"
        case .parseError: "parse error"
        }
    }

    /// Whether socket.io's client would reconnect automatically after this reason.
    public var isRecoverable: Bool {
        switch self {
        case .ioServerDisconnect, .ioClientDisconnect: false
        case .pingTimeout, .transportClose, .transportError, .parseError: true
        }
    }

    init(_ reason: EngineCloseReason) {
        switch reason {
        case .forcedClose: self = .ioClientDisconnect
        case .pingTimeout: self = .pingTimeout
        case .transportClose: self = .transportClose
        case .transportError(let detail): self = .transportError(detail)
        case .parseError(let detail): self = .parseError(detail)
        case .unsupportedVersion, .handshakeRefused: self = .transportError(reason.description)
        case .serverShuttingDown: self = .transportClose  // a server-side reason; not reported to clients
        }
    }
}

extension SocketIOError {
    /// The `connect_error` event's items for this failure: the server's message and data, or
    /// the description.
    var connectErrorItems: [JSONValue] {
        switch self {
        case .connectError(let message, let data): [.string(message), data ?? .null]
        case .invalidURL, .invalidHeader, .namespaceConflict, .connectionFailed, .ackTimeout, .disconnected, .reservedEventName,
             .payloadConversion, .notConnected, .versionMismatch, .reconnectFailed:
            [.string(description)]
        }
    }
}

/// A socket's connection status.
public enum SocketStatus: Sendable, Hashable, CustomStringConvertible {
    /// Never connected, or `connect()` not called yet.
    case notConnected
    /// Waiting for the engine and the namespace's CONNECT reply.
    case connecting
    /// Connected to the namespace, with the server-assigned socket id.
    case connected(id: String)
    /// Disconnected, and why.
    case disconnected(DisconnectReason)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .notConnected: "not connected"
        case .connecting: "connecting"
        case .connected(let id): "connected (\(id))"
        case .disconnected(let reason): "disconnected (\(reason))"
        }
    }
}
