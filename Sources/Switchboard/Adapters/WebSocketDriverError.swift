/// Why a ``WebSocketDriver`` operation failed. Each message says what happened and what to do.
public enum WebSocketDriverError: Error, Sendable, Hashable {
    /// The URL is not `ws://host[:port]/path` or `wss://…` (`http`/`https` are read as `ws`/`wss`).
    case invalidURL(String)
    /// A header of ``WebSocketDriver/Options/headers`` cannot be sent: its name is not an HTTP
    /// token, or its value has a control character; the text says which header.
    case invalidHeader(String)
    /// ``WebSocketDriver/open(onEvent:)`` was called while the driver is open or opening.
    case alreadyOpen
    /// A send or request was made while the driver is not open.
    case notOpen
    /// The WebSocket could not be opened: no server listening, TLS failed, or the server
    /// refused the upgrade; `reason` says which.
    case cannotOpen(url: String, reason: String)
    /// The WebSocket did not open within the connect timeout.
    case openTimedOut(url: String, after: Duration)
    /// The server did not reply to request `event` within `after`.
    case requestTimedOut(event: String, after: Duration)
    /// The server answered request `event` with an `error` envelope.
    case serverError(event: String, message: String)
    /// The connection closed before the request was answered (by the server, the network, a
    /// malformed message from the server, or ``WebSocketDriver/close()``).
    case closed(reason: String)
}

extension WebSocketDriverError: CustomStringConvertible {
    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .invalidURL(let url):
            "invalid WebSocket URL \(url): use ws://host:port/path or wss://host:port/path"
        case .invalidHeader(let why):
            "invalid header: \(why)"
        case .alreadyOpen:
            "the WebSocket driver is already open; close it before opening it again"
        case .notOpen:
            "the WebSocket driver is not open; open it (or queue through a Connection) before sending"
        case .cannotOpen(let url, let reason):
            "cannot open the WebSocket to \(url): \(reason); check that the server runs and the URL and TLS settings are right"
        case .openTimedOut(let url, let after):
            "the WebSocket to \(url) did not open within \(after); check the server, or raise the connect timeout"
        case .requestTimedOut(let event, let after):
            "no reply to request \"\(event)\" within \(after); the server may not answer this event, or is slow"
        case .serverError(let event, let message):
            "the server failed request \"\(event)\": \(message)"
        case .closed(let reason):
            "the WebSocket closed before the reply arrived (\(reason)); send the request again once reconnected"
        }
    }
}
