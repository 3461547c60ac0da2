extension ConnectionState {
    /// The states this one may move to, exactly SPEC.md's table.
    public var allowedNextStates: Set<ConnectionState> {
        switch self {
        case .created: [.connected, .disconnected]
        case .connected: [.disconnected]
        case .disconnected: [.reconnecting, .released]
        case .reconnecting: [.connected, .disconnected]
        case .released: []
        }
    }

    /// Whether the table allows moving from this state to `next`.
    public func canMove(to next: ConnectionState) -> Bool {
        allowedNextStates.contains(next)
    }
}
