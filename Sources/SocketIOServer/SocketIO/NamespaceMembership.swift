import SocketIOProtocol

/// Who is in a namespace, as a value: every socket by id (connected, being restored, or kept
/// away for recovery), the kept sessions by private id, and the rooms. The ``Namespace`` keeps
/// it under its lock, runs one of these methods per event, and does what they hand back (close
/// an outbox, arm or cancel an expiry) after releasing it.
struct NamespaceMembership {
    struct Member {
        enum Presence {
            case connected(ServerSocket)
            /// A recovering client is being reattached.
            case restoring
            case away(Away)
        }

        var outbox: SocketOutbox
        var rooms: Set<String>
        var presence: Presence
        /// With sessions kept in the cluster: where delivery stood when `rooms` last changed
        /// (``ClusterSession/roomsOffset``).
        var roomsOffset: String?

        var socket: ServerSocket? {
            if case .connected(let socket) = presence { return socket }
            return nil
        }
    }

    /// A dropped socket kept for recovery.
    struct Away {
        var pid: String
        var data: JSONObject
        var since: Duration
    }

    /// What a recovering client gets back.
    struct Restorable {
        var id: String
        var outbox: SocketOutbox
        var data: JSONObject
    }

    /// Every socket by id: connected ones, and (with recovery) ones kept after a drop.
    private(set) var members: [String: Member] = [:]
    /// Kept sessions by private id.
    private var pids: [String: String] = [:]
    /// Room → member ids.
    private(set) var rooms: [String: Set<String>] = [:]

    /// The connected sockets.
    var sockets: [ServerSocket] { members.values.compactMap(\.socket) }

    /// A new socket joins; it is in the room of its own id.
    mutating func add(_ socket: ServerSocket, roomsOffset: String? = nil) {
        members[socket.id] = Member(outbox: socket.outbox, rooms: [socket.id], presence: .connected(socket), roomsOffset: roomsOffset)
        rooms[socket.id, default: []].insert(socket.id)
    }

    /// A recovered socket takes its kept place back (rooms unchanged).
    mutating func attach(_ socket: ServerSocket) {
        members[socket.id]?.presence = .connected(socket)
    }

    /// `socket` left: kept away (in its rooms) when `keep` gives its private id and data,
    /// forgotten otherwise. Returns whether it was kept (`false` too when it was not the member).
    mutating func remove(_ socket: ServerSocket, keep: (pid: String, data: JSONObject, now: Duration)?) -> Bool {
        guard case .connected(let current)? = members[socket.id]?.presence, current === socket else { return false }
        guard let keep else {
            forget(socket.id)
            return false
        }
        members[socket.id]?.presence = .away(Away(pid: keep.pid, data: keep.data, since: keep.now))
        pids[keep.pid] = socket.id
        return true
    }

    /// The socket with private id `pid` that is still connected, if any.
    func connectedSocket(pid: String) -> ServerSocket? {
        for member in members.values {
            if case .connected(let socket) = member.presence, socket.pid == pid { return socket }
        }
        return nil
    }

    /// Takes the kept session of `pid` for a recovering client, unless it has been away longer
    /// than `limit` (then it is forgotten and its outbox handed back, to close).
    mutating func takeRestorable(pid: String, now: Duration, limit: Duration) -> (restorable: Restorable?, expired: SocketOutbox?) {
        guard let id = pids.removeValue(forKey: pid), let member = members[id],
              case .away(let away) = member.presence else { return (nil, nil) }
        guard now - away.since <= limit else {
            forget(id)
            return (nil, member.outbox)
        }
        members[id]?.presence = .restoring
        return (Restorable(id: id, outbox: member.outbox, data: away.data), nil)
    }

    /// Forgets member `id` (and its rooms); returns its outbox, to close.
    @discardableResult
    mutating func forget(_ id: String) -> SocketOutbox? {
        guard let member = members.removeValue(forKey: id) else { return nil }
        for room in member.rooms {
            rooms[room]?.remove(id)
            if rooms[room]?.isEmpty == true { rooms.removeValue(forKey: room) }
        }
        return member.outbox
    }

    /// The kept session `id` expired, if it is still the one that went away at `since`;
    /// returns its outbox, to close.
    mutating func expire(_ id: String, since: Duration) -> SocketOutbox? {
        guard let member = members[id], case .away(let away) = member.presence, away.since == since else { return nil }
        pids.removeValue(forKey: away.pid)
        return forget(id)
    }

    /// Member `id` joins `joined`; `roomsOffset` (where delivery stands) is kept when that
    /// changed its rooms.
    mutating func join(_ id: String, rooms joined: some Sequence<String>, roomsOffset: String? = nil) {
        guard members[id] != nil else { return }
        for room in joined where members[id]?.rooms.insert(room).inserted == true {
            rooms[room, default: []].insert(id)
            if let roomsOffset { members[id]?.roomsOffset = roomsOffset }
        }
    }

    /// Member `id` leaves `room`; `roomsOffset` as for ``join(_:rooms:roomsOffset:)``.
    mutating func leave(_ id: String, room: String, roomsOffset: String? = nil) {
        guard members[id]?.rooms.remove(room) != nil else { return }
        if let roomsOffset { members[id]?.roomsOffset = roomsOffset }
        rooms[room]?.remove(id)
        if rooms[room]?.isEmpty == true { rooms.removeValue(forKey: room) }
    }

    /// The outboxes (and sockets, when connected) a broadcast reaches: members of any of
    /// `rooms` (every member when empty), minus members of `except`, minus `excluding`.
    func recipients(rooms selected: Set<String>, except: Set<String>, excluding: String?) -> [(outbox: SocketOutbox, socket: ServerSocket?)] {
        var ids: Set<String>
        if selected.isEmpty {
            ids = Set(members.keys)
        } else {
            ids = []
            for room in selected { ids.formUnion(rooms[room] ?? []) }
        }
        for room in except { ids.subtract(rooms[room] ?? []) }
        if let excluding { ids.remove(excluding) }
        return ids.compactMap { id in members[id].map { ($0.outbox, $0.socket) } }
    }
}
