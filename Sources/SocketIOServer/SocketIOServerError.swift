public import SocketIOProtocol

/// Everything the server's API can throw, each case saying what happened.
public enum SocketIOServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No acknowledgement arrived within the timeout.
    case ackTimeout
    /// The socket disconnected before the acknowledgement arrived (or was already disconnected).
    case disconnected(ServerDisconnectReason)
    /// The socket already waits for ``SocketIOServer/Configuration/maxPendingAcks`` answers;
    /// wait for some before asking for more.
    case tooManyPendingAcks(Int)
    /// The event name is reserved by the protocol (`connect`, `disconnect`, …).
    case reservedEventName(String)
    /// `start` was called on a server that is already running or was stopped.
    case alreadyStarted
    /// The server could not listen (address in use, permission, bad host), with detail.
    case cannotListen(String)
    /// The cluster adapter's transport could not subscribe (the database is unreachable).
    case clusterUnavailable(String)
    /// ``SocketIOServer/stop()`` was called while `start` was still starting: the server does
    /// not listen, and stays stopped.
    case stoppedWhileStarting

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .ackTimeout: "operation has timed out"
        case .disconnected(let reason): "socket has been disconnected (\(reason))"
        case .tooManyPendingAcks(let limit): "too many acknowledgements pending (limit \(limit))"
        case .reservedEventName(let name): "\"\(name)\" is a reserved event name"
        case .alreadyStarted: "the server was already started"
        case .cannotListen(let why): "cannot listen: \(why)"
        case .clusterUnavailable(let why): "cannot join the cluster: \(why)"
        case .stoppedWhileStarting: "the server was stopped while it was starting"
        }
    }
}

/// Thrown by a namespace's auth hook to refuse a connection. The client gets
/// `44/<nsp>,{"message":…,"data":…}` (its `connect_error`), exactly like socket.io's
/// `next(err)` with `err.data`.
///
/// ```swift
/// chat.use { handshake in
///     guard handshake.auth?["token"] == "secret" else {
///         throw ConnectionRefused(message: "unauthorized", data: ["reason": "bad token"])
///     }
/// }
/// ```
public struct ConnectionRefused: Error, Sendable, Hashable {
    /// The refusal's `message`.
    public var message: String
    /// Extra data for the client (`err.data` in socket.io's client); omitted when `nil`.
    public var data: JSONValue?

    /// A refusal with socket.io's default message, or your own, and optional `data` for the client.
    public init(message: String = "Connection rejected by server", data: JSONValue? = nil) {
        self.message = message
        self.data = data
    }
}

/// Why a socket left its namespace, with socket.io's server reason strings.
public enum ServerDisconnectReason: Sendable, Hashable, CustomStringConvertible {
    /// The server app called `disconnect()`.
    case serverNamespaceDisconnect
    /// The client left the namespace (sent DISCONNECT).
    case clientNamespaceDisconnect
    /// The server is stopping.
    case serverShuttingDown
    /// The client did not answer a ping in time.
    case pingTimeout
    /// The client closed the connection.
    case transportClose
    /// The connection failed, with detail.
    case transportError(String)
    /// The client sent something that is not valid Socket.IO, with detail.
    case parseError(String)
    /// The server app closed the whole connection (`disconnect(close: true)` on another
    /// namespace of the same client, or the connect timeout).
    case forcedClose

    /// The reason as socket.io spells it (`"transport close"`, `"ping timeout"`, …).
    public var description: String {
        switch self {
        case .serverNamespaceDisconnect: "server namespace disconnect"
        case .clientNamespaceDisconnect: "client namespace disconnect"
        case .serverShuttingDown: "server shutting down"
        case .pingTimeout: "ping timeout"
        case .transportClose: "transport close"
        case .transportError: "transport error"
        case .parseError: "parse error"
        case .forcedClose: "forced close"
        }
    }

    /// Whether connection state recovery keeps the session (the drops the client did not ask
    /// for, as socket.io's server decides).
    public var isRecoverable: Bool {
        switch self {
        case .transportClose, .transportError, .pingTimeout, .serverShuttingDown, .forcedClose: true
        case .serverNamespaceDisconnect, .clientNamespaceDisconnect, .parseError: false
        }
    }

    init(_ reason: EngineCloseReason) {
        switch reason {
        case .transportClose: self = .transportClose
        case .transportError(let detail): self = .transportError(detail)
        case .pingTimeout: self = .pingTimeout
        case .parseError(let detail): self = .parseError(detail)
        case .forcedClose: self = .forcedClose
        case .serverShuttingDown: self = .serverShuttingDown
        case .unsupportedVersion, .handshakeRefused: self = .transportError(reason.description)
        }
    }
}
