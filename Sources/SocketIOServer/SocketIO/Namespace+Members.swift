import SwitchboardCore
import NIOConcurrencyHelpers
import SocketIOProtocol

extension Namespace {
    struct State {
        var middlewares: [Middleware] = []
        var connectionHandlers: [ConnectionHandler] = []
        /// Every socket by id: connected ones, and (with recovery) ones kept after a drop.
        var members: [String: Member] = [:]
        /// Kept sessions by private id.
        var pids: [String: String] = [:]
        /// Room → member ids.
        var rooms: [String: Set<String>] = [:]
    }

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

    /// A new socket joins (after its CONNECT reply was sent); it is in the room of its own id.
    func add(_ socket: ServerSocket) {
        state.withLockedValue { state in
            state.members[socket.id] = Member(outbox: socket.outbox, rooms: [socket.id], presence: .connected(socket))
            state.rooms[socket.id, default: []].insert(socket.id)
        }
    }

    /// A recovered socket takes its kept place back (rooms unchanged).
    func attach(_ socket: ServerSocket) {
        state.withLockedValue { state in
            state.members[socket.id]?.presence = .connected(socket)
        }
    }

    /// A socket left. With recovery on and a recoverable reason it is kept (in its rooms, its
    /// outbox logging) until `maxDisconnectionDuration` passes; otherwise it is forgotten.
    func remove(_ socket: ServerSocket, reason: ServerDisconnectReason) {
        let now = environment.clock.now()
        let keep: Bool = state.withLockedValue { state in
            guard case .connected(let current)? = state.members[socket.id]?.presence, current === socket else { return false }
            guard let pid = socket.pid, reason.isRecoverable, environment.configuration.recovery != nil else {
                Self.forget(socket.id, in: &state)
                return false
            }
            state.members[socket.id]?.presence = .away(Away(pid: pid, data: socket.data, since: now))
            state.pids[pid] = socket.id
            return true
        }
        if keep, let recovery = environment.configuration.recovery {
            socket.outbox.goAway()
            let id = socket.id
            expiries.arm(id, after: recovery.maxDisconnectionDuration) { [weak self] in self?.expire(id, since: now) }
        } else {
            socket.outbox.close()
        }
    }

    /// The socket with private id `pid` that is still connected, if any.
    func connectedSocket(pid: String) -> ServerSocket? {
        state.withLockedValue { state in
            for member in state.members.values {
                if case .connected(let socket) = member.presence, socket.pid == pid { return socket }
            }
            return nil
        }
    }

    /// Takes the kept session of `pid` for a recovering client, unless it expired.
    func takeRestorable(pid: String) -> Restorable? {
        guard let recovery = environment.configuration.recovery else { return nil }
        let now = environment.clock.now()
        let (restorable, expired): (Restorable?, SocketOutbox?) = state.withLockedValue { state in
            guard let id = state.pids.removeValue(forKey: pid), let member = state.members[id],
                  case .away(let away) = member.presence else { return (nil, nil) }
            guard now - away.since <= recovery.maxDisconnectionDuration else {
                Self.forget(id, in: &state)
                return (nil, member.outbox)
            }
            state.members[id]?.presence = .restoring
            return (Restorable(id: id, outbox: member.outbox, data: away.data), nil)
        }
        if let restorable { expiries.cancel(restorable.id) }
        expired?.close()
        return restorable
    }

    /// A restore failed (the client's offset is not kept): the session is forgotten.
    func forget(_ id: String) {
        let outbox = state.withLockedValue { state in
            defer { Self.forget(id, in: &state) }
            return state.members[id]?.outbox
        }
        expiries.cancel(id)
        outbox?.close()
    }

    private func expire(_ id: String, since: Duration) {
        let outbox: SocketOutbox? = state.withLockedValue { state in
            guard let member = state.members[id], case .away(let away) = member.presence, away.since == since else { return nil }
            state.pids.removeValue(forKey: away.pid)
            Self.forget(id, in: &state)
            return member.outbox
        }
        outbox?.close()
    }

    private static func forget(_ id: String, in state: inout State) {
        guard let member = state.members.removeValue(forKey: id) else { return }
        for room in member.rooms {
            state.rooms[room]?.remove(id)
            if state.rooms[room]?.isEmpty == true { state.rooms.removeValue(forKey: room) }
        }
    }

    // MARK: - Rooms

    func join(_ id: String, rooms: some Sequence<String>) {
        state.withLockedValue { state in
            guard state.members[id] != nil else { return }
            for room in rooms {
                state.members[id]?.rooms.insert(room)
                state.rooms[room, default: []].insert(id)
            }
        }
    }

    func leave(_ id: String, room: String) {
        state.withLockedValue { state in
            guard state.members[id]?.rooms.remove(room) != nil else { return }
            state.rooms[room]?.remove(id)
            if state.rooms[room]?.isEmpty == true { state.rooms.removeValue(forKey: room) }
        }
    }

    func rooms(of id: String) -> Set<String> {
        state.withLockedValue { $0.members[id]?.rooms ?? [] }
    }

    /// The outboxes (and sockets, when connected) a broadcast reaches: members of any of `rooms`
    /// (every member when empty), minus members of `except`, minus `excluding`.
    func recipients(
        rooms: Set<String>,
        except: Set<String>,
        excluding: String?
    ) -> [(outbox: SocketOutbox, socket: ServerSocket?)] {
        state.withLockedValue { state in
            var ids: Set<String>
            if rooms.isEmpty {
                ids = Set(state.members.keys)
            } else {
                ids = []
                for room in rooms { ids.formUnion(state.rooms[room] ?? []) }
            }
            for room in except { ids.subtract(state.rooms[room] ?? []) }
            if let excluding { ids.remove(excluding) }
            return ids.compactMap { id in state.members[id].map { ($0.outbox, $0.socket) } }
        }
    }
}
