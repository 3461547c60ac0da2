/// Where the app's lifecycle has a ``ConnectionManager``: what ``SuspendedAppRule`` acts on.
public enum AppLifecycle: Sendable, Hashable {
    /// In the foreground (or never suspended).
    case active
    /// Suspended, still within the grace period: connections stay as they are (a quick trip to
    /// another app costs nothing).
    case suspending
    /// Suspended past the grace: occupied connections are suspended (closed as if lost, so the
    /// server keeps their sessions) and stay so until ``ConnectionManager/resume()``.
    case suspended
}

/// Default rule 0: while the app is ``AppLifecycle/suspended``, an occupied connection that is
/// up is suspended (``Connection/suspend()``: closed the way a lost connection is, so a server
/// with session recovery keeps its session), and one that is down stays down. After
/// ``ConnectionManager/resume()`` the other rules reconnect it at once, and it recovers.
public struct SuspendedAppRule: ConnectionRule {
    /// The rule.
    public init() {}

    /// The rule's action for `snapshot`, or `nil` when it does not apply.
    public func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
        guard snapshot.appLifecycle == .suspended, snapshot.isOccupied else { return nil }
        switch snapshot.state {
        case .connected, .reconnecting: return .suspend
        case .created, .disconnected, .released: return .keep
        }
    }
}
