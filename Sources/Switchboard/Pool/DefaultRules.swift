/// Default rule 1: a connection someone leases and that is `disconnected` is reconnected
/// (`reconnecting`). A leased connection that was never opened (`created`) is opened.
public struct ReconnectOccupiedRule: ConnectionRule {
    /// The rule.
    public init() {}

    /// The rule's action for `snapshot`, or `nil` when it does not apply.
    public func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
        switch snapshot.state {
        case .disconnected, .created: snapshot.isOccupied ? .connect : nil
        case .connected, .reconnecting, .released: nil
        }
    }
}

/// Default rule 2: a connection nobody leases and that is `connected` is disconnected. One that
/// was never opened (`created`) moves to `disconnected` too, so rule 3 can release it.
public struct DisconnectUnoccupiedRule: ConnectionRule {
    /// The rule.
    public init() {}

    /// The rule's action for `snapshot`, or `nil` when it does not apply.
    public func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
        switch snapshot.state {
        case .connected, .created: snapshot.isOccupied ? nil : .disconnect
        case .disconnected, .reconnecting, .released: nil
        }
    }
}

/// Default rule 3: a connection nobody leases and that is `disconnected` is released and leaves
/// the pool.
public struct ReleaseUnoccupiedRule: ConnectionRule {
    /// The rule.
    public init() {}

    /// The rule's action for `snapshot`, or `nil` when it does not apply.
    public func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
        switch snapshot.state {
        case .disconnected: snapshot.isOccupied ? nil : .release
        case .created, .connected, .reconnecting, .released: nil
        }
    }
}

/// Keeps a connection nobody leases for `grace` before the later rules may close it, so a screen
/// change (one screen lets go, the next leases the same URL a moment later) does not tear the
/// connection down. Put it before the default rules:
///
/// ```swift
/// let manager = ConnectionManager(rules: [IdleGraceRule(grace: .seconds(10))] + ConnectionKeeper.defaultRules)
/// ```
///
/// The connection is closed by the first scan after the grace ran out.
public struct IdleGraceRule: ConnectionRule {
    /// How long an unleased connection is kept as it is.
    public let grace: Duration

    /// A rule that keeps unleased connections for `grace`.
    public init(grace: Duration) {
        self.grace = grace
    }

    /// The rule's action for `snapshot`, or `nil` when it does not apply.
    public func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
        guard !snapshot.isOccupied, let idle = snapshot.idleDuration, idle < grace else { return nil }
        return .keep
    }
}
