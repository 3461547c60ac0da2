/// What happened to the listening connection, for tests to await instead of polling.
enum ListenerEvent: Sendable, Hashable {
    /// The connection closed; a reconnection is scheduled.
    case lost
    /// A reconnection attempt failed; another is scheduled.
    case reconnectFailed
    /// A new connection listens on every subscribed namespace again.
    case restored
}
