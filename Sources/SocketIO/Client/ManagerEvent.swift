/// What happens to a manager's connection, as socket.io's manager events name it.
public enum ManagerEvent: Sendable, Hashable {
    /// The Engine.IO session opened.
    case open
    /// A server heartbeat ping arrived (v4), or our ping was answered (v3).
    case ping
    /// The session moved from polling to WebSocket.
    case upgrade
    /// The Engine.IO session closed, and why.
    case close(DisconnectReason)
    /// The session could not be opened.
    case error(String)
    /// A reconnection attempt starts (1 for the first after a loss).
    case reconnectAttempt(Int)
    /// A reconnection attempt failed, and why; the next one follows after the backoff delay.
    case reconnectError(String)
    /// The manager reconnected after this many attempts.
    case reconnect(Int)
    /// `reconnectionAttempts` attempts failed; the manager stopped trying.
    case reconnectFailed
}
