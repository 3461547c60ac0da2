import SwitchboardCore
import SocketIOProtocol

extension Namespace {
    /// A new socket joins (after its CONNECT reply was sent); it is in the room of its own id.
    func add(_ socket: ServerSocket) {
        membership { $0.add(socket) }
    }

    /// A recovered socket takes its kept place back (rooms unchanged).
    func attach(_ socket: ServerSocket) {
        membership { $0.attach(socket) }
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
    }

    func leave(_ id: String, room: String) {
        membership { $0.leave(id, room: room) }
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
