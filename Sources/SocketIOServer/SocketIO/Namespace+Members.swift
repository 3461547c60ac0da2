import SwitchboardCore
import SocketIOProtocol

extension Namespace {
    /// A new socket joins (after its CONNECT reply was sent); it is in the room of its own id.
    func add(_ socket: ServerSocket) {
        membership { $0.add(socket) }
        durable?.connected(socket, rooms: [socket.id])
    }

    /// A socket recovered from the cluster's store joins with its rooms.
    func add(_ socket: ServerSocket, rooms: [String]) {
        let joined = membership { membership in
            membership.add(socket)
            membership.join(socket.id, rooms: rooms)
            return membership.members[socket.id]?.rooms ?? []
        }
        durable?.connected(socket, rooms: joined)
    }

    /// A recovered socket takes its kept place back (rooms unchanged).
    func attach(_ socket: ServerSocket) {
        let rooms = membership { membership in
            membership.attach(socket)
            return membership.members[socket.id]?.rooms ?? []
        }
        durable?.connected(socket, rooms: rooms)
    }

    /// A session's rooms or data changed: written to the cluster's store, when it keeps them.
    func sessionChanged(_ id: String) {
        guard let durable else { return }
        let found = membership { membership in
            membership.members[id].flatMap { member in member.socket.map { ($0, member.rooms) } }
        }
        guard let (socket, rooms) = found else { return }
        durable.connected(socket, rooms: rooms)
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
        membership { $0.join(id, rooms: rooms) }
        sessionChanged(id)
    }

    func leave(_ id: String, room: String) {
        membership { $0.leave(id, room: room) }
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
