/// One link of the ``ConnectionKeeper``'s chain: looks at a pooled connection and says what to
/// do, or `nil` to let the next rule decide. The first rule that returns an action wins; no
/// other rule sees that connection in that scan.
///
/// ```swift
/// /// Keeps connections to the payments server up even when no screen leases them.
/// struct KeepPaymentsWarm: ConnectionRule {
///     func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
///         guard snapshot.configuration.url.host == "payments.example.com" else { return nil }
///         return snapshot.state == .disconnected ? .connect : .keep
///     }
/// }
/// let manager = ConnectionManager(rules: [KeepPaymentsWarm()] + ConnectionKeeper.defaultRules)
/// ```
///
/// `action(for:)` runs outside every lock and must return quickly (it decides; the keeper acts).
public protocol ConnectionRule: Sendable {
    /// What to do with this connection, or `nil` when the rule does not apply.
    func action(for snapshot: ConnectionSnapshot) -> KeeperAction?
}

/// What a ``ConnectionRule`` tells the keeper to do with a connection.
public enum KeeperAction: Sendable {
    /// Leave it as it is (the rule applies, so later rules are not asked).
    case keep
    /// Open it: from `created` the first connect, from `disconnected` a reconnection
    /// (`reconnecting`).
    case connect
    /// Close it (→ `disconnected`); queued commands stay queued.
    case disconnect
    /// Close it as a lost connection would close (→ `disconnected`), so a server with session
    /// recovery keeps the session for the next connect (``Connection/suspend()``).
    case suspend
    /// Take it out of the pool and release it (only from `disconnected`); its queued commands fail.
    case release
    /// Anything else, named for the keeper's events and logs.
    case custom(name: String, @Sendable (any Connection) async throws -> Void)

    /// The action's name in ``KeeperEvent``s and logs.
    public var name: String {
        switch self {
        case .keep: "keep"
        case .connect: "connect"
        case .disconnect: "disconnect"
        case .suspend: "suspend"
        case .release: "release"
        case .custom(let name, _): name
        }
    }
}
