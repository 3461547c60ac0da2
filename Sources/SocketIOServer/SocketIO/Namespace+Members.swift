import SwitchboardCore
import SocketIOProtocol

extension Namespace {
    /// A new socket joins (after its CONNECT reply was sent); it is in the room of its own id.
    func add(_ socket: ServerSocket) {
        let roomsOffset = changingRooms { membership, roomsOffset in
            membership.add(socket, roomsOffset: roomsOffset)
            return roomsOffset
        }
        durable?.connected(socket, rooms: [socket.id], roomsOffset: roomsOffset)
    }

    /// A socket recovered from the cluster's store joins with its rooms, and where delivery
    /// stood when they last changed (called in delivery order).
    func add(_ socket: ServerSocket, rooms: [String], roomsOffset: String?) {
        let joined = membership { membership in
            membership.add(socket, roomsOffset: roomsOffset)
            membership.join(socket.id, rooms: rooms)
            return membership.members[socket.id]?.rooms ?? []
        }
        durable?.connected(socket, rooms: joined, roomsOffset: roomsOffset)
    }

    /// A recovered socket takes its kept place back (rooms unchanged).
    func attach(_ socket: ServerSocket) {
        let (rooms, roomsOffset) = membership { membership in
            membership.attach(socket)
            return (membership.members[socket.id]?.rooms ?? [], membership.members[socket.id]?.roomsOffset)
        }
        durable?.connected(socket, rooms: rooms, roomsOffset: roomsOffset)
    }

    /// A session's rooms or data changed: written to the cluster's store, when it keeps them.
    func sessionChanged(_ id: String) {
        guard let durable else { return }
        let found = membership { membership in
            membership.members[id].flatMap { member in member.socket.map { ($0, member.rooms, member.roomsOffset) } }
        }
        guard let (socket, rooms, roomsOffset) = found else { return }
        durable.connected(socket, rooms: rooms, roomsOffset: roomsOffset)
    }

    /// Runs `change` on the membership, given where delivery stands when the namespace keeps
    /// its sessions in the cluster: then in delivery order, so an event delivered before the
    /// change is behind that offset and one delivered after it is not.
    private func changingRooms<T>(_ change: (inout NamespaceMembership, String?) -> T) -> T {
        guard let durable else { return membership { change(&$0, nil) } }
        return durable.order.inOrder { cursor in
            let roomsOffset = cursor.frontier.position
            return membership { change(&$0, roomsOffset) }
        }
    }

    /// A socket left. With recovery on and a recoverable reason it is kept (in its rooms, its
    /// outbox logging) until `maxDisconnectionDuration` passes; otherwise it is forgotten.
    func remove(_ socket: ServerSocket, reason: ServerDisconnectReason) {
        let now = environment.clock.now()
        let recovery = environment.configuration.recovery
        let keep = socket.pid.flatMap { pid in
            reason.isRecoverable && recovery != nil ? (pid: pid, data: socket.data, now: now) : nil
        }
        let kept = membership { $0.remove(socket, keep: keep) }
        if let durable, let pid = socket.pid {
            durable.keeper.record(kept ? .disconnected(pid: pid) : .removed(pid: pid))
        }
        if kept, let recovery {
            socket.outbox.goAway()
            let id = socket.id
            expiries.arm(id, after: recovery.maxDisconnectionDuration) { [weak self] in self?.expire(id, since: now) }
        } else {
            socket.outbox.close()
        }
    }

    /// The socket with private id `pid` that is still connected, if any.
    func connectedSocket(pid: String) -> ServerSocket? {
        membership { $0.connectedSocket(pid: pid) }
    }

    /// Takes the kept session of `pid` for a recovering client, unless it expired.
    func takeRestorable(pid: String) -> NamespaceMembership.Restorable? {
        guard let recovery = environment.configuration.recovery else { return nil }
        let now = environment.clock.now()
        let (restorable, expired) = membership { $0.takeRestorable(pid: pid, now: now, limit: recovery.maxDisconnectionDuration) }
        if let restorable { expiries.cancel(restorable.id) }
        expired?.close()
        return restorable
    }

    /// A restore failed (the client's offset is not kept): the session is forgotten.
    func forget(_ id: String) {
        let outbox = membership { $0.forget(id) }
        expiries.cancel(id)
        outbox?.close()
    }

    private func expire(_ id: String, since: Duration) {
        membership { $0.expire(id, since: since) }?.close()
    }

    // MARK: - Rooms

    func join(_ id: String, rooms: some Sequence<String>) {
        changingRooms { $0.join(id, rooms: rooms, roomsOffset: $1) }
        sessionChanged(id)
    }

    func leave(_ id: String, room: String) {
        changingRooms { $0.leave(id, room: room, roomsOffset: $1) }
        sessionChanged(id)
    }

    func rooms(of id: String) -> Set<String> {
        membership { $0.members[id]?.rooms ?? [] }
    }

    /// The outboxes (and sockets, when connected) a broadcast reaches: members of any of `rooms`
    /// (every member when empty), minus members of `except`, minus `excluding`.
    func recipients(
        rooms: Set<String>,
        except: Set<String>,
        excluding: String?
    ) -> [(outbox: SocketOutbox, socket: ServerSocket?)] {
        membership { $0.recipients(rooms: rooms, except: except, excluding: excluding) }
    }
}
