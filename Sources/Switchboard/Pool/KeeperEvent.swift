/// What the ``ConnectionKeeper`` did, for logs, tests and dashboards.
public enum KeeperEvent: Sendable, Hashable, CustomStringConvertible {
    /// A rule's action ran on `connection`, which was in state `from`; `failure` says why it
    /// failed, `nil` when it succeeded.
    case acted(ConnectionID, action: String, from: ConnectionState, failure: String?)
    /// `connection` left the pool (it was released).
    case removed(ConnectionID)
    /// A scan looked at `connections` connections and every action it started finished.
    case scanFinished(connections: Int)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .acted(let id, let action, let from, nil): "\(id): \(action) (was \(from))"
        case .acted(let id, let action, let from, let failure?): "\(id): \(action) (was \(from)) failed: \(failure)"
        case .removed(let id): "\(id) left the pool"
        case .scanFinished(let count): "scan of \(count) connections finished"
        }
    }
}
