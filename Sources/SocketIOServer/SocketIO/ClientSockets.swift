import SocketIOProtocol

/// The sockets of one client (``ClientConnection``) by namespace, as a value: each namespace
/// joined (its socket) or being joined (its CONNECT is being handled).
///
/// One of either per namespace: a CONNECT while the namespace is joined, or while its CONNECT is
/// still being handled (the auth hooks of a POST's CONNECT still running when the same CONNECT
/// comes on the WebSocket the session upgraded to), is refused. Otherwise it made a second
/// socket that this table did not hold, so the session closed without it and it stayed in its
/// namespace for ever.
///
/// A CONNECT is handled beside the connection's reading, not in its way (an auth hook or a
/// connection handler may wait: for a database, for the client's ack of an `emitWithAck`). The
/// client's packets for that namespace wait here meanwhile, in order, so a socket never gets an
/// event before its connection handlers return; only the acks of what the socket emitted go to
/// it at once. Past ``pendingLimit`` packets waiting, the reader waits too.
struct ClientSockets {
    /// How many of the client's packets may wait for one namespace's CONNECT before the
    /// connection stops reading (as its transport's backlog would make it).
    static let pendingLimit = 256

    private enum Entry {
        /// Its CONNECT is being handled; `socket` once it is in its namespace (its connection
        /// handlers are running).
        case joining(socket: ServerSocket?, pending: [SocketPacket])
        case joined(ServerSocket)
    }

    private var entries: [String: Entry] = [:]
    /// Whether a socket ever joined (the connect timeout is over then).
    private(set) var joinedAny = false
    /// The reader, waiting for room behind a CONNECT being handled.
    private var roomWaiter: CheckedContinuation<Void, Never>?
    /// Whether the reader waits for room (for diagnostics and tests).
    var readerWaits: Bool { roomWaiter != nil }

    /// Every socket in its namespace, connection handlers done or not.
    var all: [ServerSocket] {
        entries.values.compactMap { entry in
            switch entry {
            case .joined(let socket), .joining(let socket?, _): socket
            case .joining(nil, _): nil
            }
        }
    }

    /// A CONNECT to `namespace` is to be handled: `false` when the namespace is joined or its
    /// CONNECT is being handled already.
    mutating func beginJoining(_ namespace: String) -> Bool {
        guard entries[namespace] == nil else { return false }
        entries[namespace] = .joining(socket: nil, pending: [])
        return true
    }

    /// Where one of the client's packets (not a CONNECT) goes.
    enum Route {
        /// To this socket, now.
        case deliver(ServerSocket)
        /// Kept until the namespace's CONNECT has been handled.
        case held
        /// Kept, and too many are: the reader waits for room (``waitForRoom(_:)``).
        case heldFull
        /// The namespace is neither joined nor being joined.
        case notJoined
    }

    mutating func route(_ packet: SocketPacket, to namespace: String) -> Route {
        switch entries[namespace] {
        case .joined(let socket)?:
            return .deliver(socket)
        case .joining(let socket?, _)? where packet.kind == .ack || packet.kind == .binaryAck:
            return .deliver(socket)
        case .joining(let socket, var pending)?:
            pending.append(packet)
            entries[namespace] = .joining(socket: socket, pending: pending)
            return pending.count >= Self.pendingLimit ? .heldFull : .held
        case nil:
            return .notJoined
        }
    }

    /// After ``Route/heldFull``: parks the reader until ``takePending(_:)`` makes room (at once
    /// when it did already, or the connection closed).
    mutating func waitForRoom(_ continuation: CheckedContinuation<Void, Never>) -> CheckedContinuation<Void, Never>? {
        let full = entries.values.contains { entry in
            if case .joining(_, let pending) = entry { return pending.count >= Self.pendingLimit }
            return false
        }
        guard full else { return continuation }
        roomWaiter = continuation
        return nil
    }

    /// What waited for `namespace`'s CONNECT to be handled, to hand to `socket` in order, and
    /// the reader to wake; `nil` when nothing waits: the namespace is joined from now on (left,
    /// or refused: no longer held). Call until it returns `nil`.
    mutating func takePending(_ namespace: String) -> (pending: [SocketPacket], socket: ServerSocket?, wake: CheckedContinuation<Void, Never>?)? {
        guard case .joining(let socket, let pending)? = entries[namespace] else { return nil }
        guard pending.isEmpty else {
            entries[namespace] = .joining(socket: socket, pending: [])
            defer { roomWaiter = nil }
            return (pending, socket, roomWaiter)
        }
        entries[namespace] = socket.map(Entry.joined)
        return nil
    }

    /// `socket` joined its namespace (its connection handlers are to run).
    mutating func join(_ socket: ServerSocket) {
        let name = socket.namespace.name
        if case .joining(_, let pending)? = entries[name] {
            entries[name] = .joining(socket: socket, pending: pending)
        } else {
            entries[name] = .joined(socket)
        }
        joinedAny = true
    }

    /// `socket` left its namespace.
    mutating func leave(_ socket: ServerSocket) {
        switch entries[socket.namespace.name] {
        case .joined(let current)? where current === socket:
            entries[socket.namespace.name] = nil
        case .joining(let current?, let pending)? where current === socket:
            entries[socket.namespace.name] = .joining(socket: nil, pending: pending)
        case .joined?, .joining?, nil:
            return
        }
    }

    /// The connection closed: every socket, to finish, and the reader to wake; none is left,
    /// nor any CONNECT.
    mutating func removeAll() -> (sockets: [ServerSocket], wake: CheckedContinuation<Void, Never>?) {
        defer {
            entries.removeAll()
            roomWaiter = nil
        }
        return (all, roomWaiter)
    }
}
