/// The sockets of one client (``ClientConnection``) by namespace, as a value: each namespace
/// joined (its socket) or being joined (its CONNECT is being handled).
///
/// One of either per namespace: a CONNECT while the namespace is joined, or while its CONNECT is
/// still being handled (the auth hooks of a POST's CONNECT still running when the same CONNECT
/// comes on the WebSocket the session upgraded to), is refused. Otherwise it made a second
/// socket that this table did not hold, so the session closed without it and it stayed in its
/// namespace for ever.
struct ClientSockets {
    private enum Entry {
        case joining
        case joined(ServerSocket)
    }

    private var entries: [String: Entry] = [:]
    /// Whether a socket ever joined (the connect timeout is over then).
    private(set) var joinedAny = false

    /// The socket that joined `namespace`, if any.
    func socket(_ namespace: String) -> ServerSocket? {
        if case .joined(let socket)? = entries[namespace] { return socket }
        return nil
    }

    /// Every socket joined.
    var all: [ServerSocket] {
        entries.values.compactMap { entry in
            if case .joined(let socket) = entry { return socket }
            return nil
        }
    }

    /// A CONNECT to `namespace` is to be handled: `false` when the namespace is joined or its
    /// CONNECT is being handled already.
    mutating func beginJoining(_ namespace: String) -> Bool {
        guard entries[namespace] == nil else { return false }
        entries[namespace] = .joining
        return true
    }

    /// The CONNECT to `namespace` was handled: a namespace it did not join (refused) may be
    /// asked for again.
    mutating func endJoining(_ namespace: String) {
        if case .joining? = entries[namespace] { entries[namespace] = nil }
    }

    /// `socket` joined its namespace.
    mutating func join(_ socket: ServerSocket) {
        entries[socket.namespace.name] = .joined(socket)
        joinedAny = true
    }

    /// `socket` left its namespace.
    mutating func leave(_ socket: ServerSocket) {
        guard case .joined(let current)? = entries[socket.namespace.name], current === socket else { return }
        entries[socket.namespace.name] = nil
    }

    /// The connection closed: every socket joined, to finish; none is left, nor any CONNECT.
    mutating func removeAll() -> [ServerSocket] {
        defer { entries.removeAll() }
        return all
    }
}
