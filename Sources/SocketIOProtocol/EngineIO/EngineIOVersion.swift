/// The Engine.IO protocol revision, sent as the `EIO` query parameter.
///
/// The pairing with Socket.IO is fixed: Engine.IO v4 carries Socket.IO v5 (socket.io servers 3.x
/// and 4.x), Engine.IO v3 carries Socket.IO v4 (socket.io 2.x, or newer servers with `allowEIO3`).
public enum EngineIOVersion: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Engine.IO v3: socket.io 2.x servers (and 3.x/4.x with `allowEIO3`).
    case v3 = 3
    /// Engine.IO v4: socket.io 3.x and 4.x servers.
    case v4 = 4

    /// The Socket.IO protocol that rides on this Engine.IO revision.
    public var socketIOVersion: SocketIOVersion {
        switch self {
        case .v3: .v4
        case .v4: .v5
        }
    }

    /// A one-line description, for logs.
    public var description: String { "Engine.IO v\(rawValue)" }
}

/// The Socket.IO protocol revision.
public enum SocketIOVersion: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Socket.IO protocol v4 (socket.io 2.x), over Engine.IO v3.
    case v4 = 4
    /// Socket.IO protocol v5 (socket.io 3.x and 4.x), over Engine.IO v4.
    case v5 = 5

    /// The Engine.IO revision this protocol rides on.
    public var engineIOVersion: EngineIOVersion {
        switch self {
        case .v4: .v3
        case .v5: .v4
        }
    }

    /// A one-line description, for logs.
    public var description: String { "Socket.IO protocol v\(rawValue)" }
}
