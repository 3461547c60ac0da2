import Logging
import SocketIOProtocol

extension ClientConnection {
    /// Gives a recovering client its session back from the cluster's store: whichever server
    /// it was on, alive or dead. The session is taken in the store (no other server can take
    /// it after), then, unless this server still has it in memory with the client's offset:
    /// this server waits until it has delivered what the offset names, joins the socket to
    /// its rooms (holding what is delivered from then on), and replays from the journal every
    /// event addressed to the session between the offset and that point, before the CONNECT
    /// reply and what was held. `false` means connect it afresh.
    func restoreFromCluster(
        _ namespace: Namespace,
        pid: String,
        offset: String,
        auth: JSONObject?,
        recovery: ConnectionStateRecovery
    ) async -> Bool {
        guard let durable = namespace.durable, let cluster = namespace.cluster,
              let position = ClusterFrontier(offset: offset) else { return false }
        var logger = session.logger
        logger[metadataKey: "socketio.nsp"] = "\(namespace.name)"
        let taken: TakenClusterSession
        do {
            guard let found = try await durable.store.takeSession(
                pid: pid, namespace: namespace.name, owner: cluster.uid, maxAge: recovery.maxDisconnectionDuration
            ) else { return false }
            taken = found
        } catch {
            logger.warning("cannot recover: the cluster's session store failed", metadata: ["error": "\(error)"])
            return false
        }
        if taken.owner == cluster.uid,
           await restore(namespace, pid: pid, offset: offset, auth: auth, recovery: recovery) {
            return true
        }
        // Any copy of the session here is stale now.
        closeStale(namespace, pid: pid)
        if let kept = namespace.takeRestorable(pid: pid) { namespace.forget(kept.id) }
        namespace.forget(taken.session.id)
        if taken.owner != cluster.uid {
            // Its old server, if alive, lets go of a connection it still thinks open.
            cluster.publish(.disconnectSockets(options: ClusterBroadcastOptions(rooms: [taken.session.id]), close: false))
        }

        guard await catchUp(to: position, in: namespace, durable: durable, cluster: cluster, logger: logger) else { return false }

        let socket = ServerSocket(
            id: taken.session.id,
            pid: pid,
            namespace: namespace,
            handshake: SocketHandshake(namespace: namespace.name, auth: auth, request: session.request),
            recovered: true,
            data: taken.session.data,
            outbox: SocketOutbox(
                session: session,
                log: PacketLog(maxEntries: recovery.maxStoredPackets, maxAge: recovery.maxDisconnectionDuration),
                clock: environment.clock
            ),
            client: self
        )
        // Joined in delivery order: everything delivered after `reached` is held behind the replay.
        let reached = durable.order.inOrder { cursor -> ClusterFrontier in
            namespace.add(socket, rooms: taken.session.rooms)
            return cursor.frontier
        }
        let replayed: [(offset: String, frames: [EngineFrame])]
        do {
            // This server's own events up to `reached` are in the journal once published.
            try await cluster.publishAwaiting(.none(.heartbeat))
            replayed = try await replay(
                from: position, to: reached, for: taken, in: namespace, store: durable.store
            )
        } catch {
            logger.warning("cannot recover: the cluster's journal could not be read", metadata: ["error": "\(error)"])
            namespace.forget(socket.id)
            return false
        }
        logger.debug("recovered a session from the cluster", metadata: [
            "socketio.id": "\(socket.id)", "socketio.replayed": "\(replayed.count)", "socketio.cluster.from": "\(taken.owner)",
        ])
        socket.outbox.open(replaying: replayed, reply: EngineFrame.frames(of: Self.connectReply(namespace.name, id: socket.id, pid: pid)))
        await joined(socket)
        return true
    }

    /// Waits until this server has delivered every message of the other servers that
    /// `position` names and the journal has (what never reached the journal — a dead server's
    /// last events — cannot come). `false` when the journal cannot be read.
    private func catchUp(
        to position: ClusterFrontier,
        in namespace: Namespace,
        durable: DurableSessions,
        cluster: NamespaceCluster,
        logger: Logger
    ) async -> Bool {
        let own = ClusterFrontier.tag(cluster.uid)
        let others = position.seen.filter { $0.key != own }
        guard !others.isEmpty else { return true }
        let journaled: [String: UInt64]
        do {
            journaled = try await durable.store.lastJournaled(namespace: namespace.name, origins: others.keys.sorted())
        } catch {
            logger.warning("cannot recover: the cluster's journal could not be read", metadata: ["error": "\(error)"])
            return false
        }
        var targets: [String: UInt64] = [:]
        for (origin, number) in others {
            if let last = journaled[origin] { targets[origin] = min(number, last) }
        }
        if !(await durable.order.wait(until: targets, within: DurableSessions.catchUpLimit, clock: environment.clock)) {
            logger.warning("recovering before this server caught up with the cluster", metadata: ["targets": "\(targets)"])
        }
        return true
    }

    /// The events for `taken` numbered after `position` up to `reached`, from the journal, each
    /// encoded with its offset.
    private func replay(
        from position: ClusterFrontier,
        to reached: ClusterFrontier,
        for taken: TakenClusterSession,
        in namespace: Namespace,
        store: any ClusterSessionStore
    ) async throws -> [(offset: String, frames: [EngineFrame])] {
        var ranges: [ClusterJournalRange] = []
        for (origin, through) in reached.seen.sorted(by: { $0.key < $1.key }) {
            let after = position.seen[origin]
            if let after, after >= through { continue }
            ranges.append(ClusterJournalRange(origin: origin, after: after, through: through))
        }
        guard !ranges.isEmpty else { return [] }
        let messages = try await store.journal(namespace: namespace.name, ranges: ranges, since: taken.createdAt)
        let rooms = Set(taken.session.rooms)
        var current = position
        var replayed: [(offset: String, frames: [EngineFrame])] = []
        for message in messages {
            guard let sequence = message.sequence else { continue }
            current.advance(message.uid, to: sequence)
            guard case .broadcast(let packet, let options, nil)? = try? message.payload, !options.isVolatile,
                  let event = packet.event, DurableSessions.selects(options, rooms: rooms) else { continue }
            let offset = current.offset
            replayed.append((offset, namespace.encodeEvent(event, items: packet.items, offset: offset)))
        }
        return replayed
    }
}
