import Logging
import SocketIOProtocol

extension ClientConnection {
    /// Gives a recovering client its session back from the cluster's store: whichever server
    /// it was on, alive or dead. The session is taken in the store (no other server can take
    /// it after), then, unless this server still has it in memory with the client's offset:
    /// this server waits until it has delivered what the offset names, joins the socket to
    /// its rooms (holding what is delivered from then on), and replays from the journal every
    /// event addressed to the session between the offset and that point, before the CONNECT
    /// reply and what was held. A client without an offset kept no event: it is replayed
    /// from where its rooms last changed (``ClusterSession/roomsOffset``). Every call to the
    /// store is bounded (``ClusterOptions/requestTimeout``).
    func restoreFromCluster(
        _ namespace: Namespace,
        pid: String,
        offset: String?,
        auth: JSONObject?,
        recovery: ConnectionStateRecovery
    ) async -> ClusterRestoreOutcome {
        let position = offset.map(ClusterFrontier.init(offset:))
        guard let cluster = namespace.cluster, position != .some(nil) else { return .connectAfresh }
        let outcome = await takeAndRestore(namespace, position: position ?? nil, pid: pid, offset: offset, auth: auth, recovery: recovery)
        guard outcome == .connectAfresh, cluster.isLeaving else { return outcome }
        // It failed because this server is leaving the cluster (its store closing under the
        // restore): the session stays in the store, where another server can take it, and
        // the client is sent there with its offset rather than given a fresh session here.
        session.logger.info("recovery interrupted by this server leaving the cluster; the client will recover elsewhere", metadata: ["socketio.nsp": "\(namespace.name)"])
        return .sendElsewhere
    }

    private func takeAndRestore(
        _ namespace: Namespace, position: ClusterFrontier?, pid: String, offset: String?, auth: JSONObject?, recovery: ConnectionStateRecovery
    ) async -> ClusterRestoreOutcome {
        guard let durable = namespace.durable, let cluster = namespace.cluster else { return .connectAfresh }
        var logger = session.logger
        logger[metadataKey: "socketio.nsp"] = "\(namespace.name)"
        let taken: TakenClusterSession
        do {
            let (store, name, owner) = (durable.store, namespace.name, cluster.uid)
            guard let found = try await durable.bounded("taking a session", {
                try await store.takeSession(pid: pid, namespace: name, owner: owner, maxAge: recovery.maxDisconnectionDuration)
            }) else { return .connectAfresh }
            taken = found
        } catch {
            logger.warning("cannot recover: the cluster's session store failed", metadata: ["error": "\(error)"])
            // A take that answers after its deadline may still have taken it.
            if !cluster.isLeaving { durable.keeper.record(.removed(pid: pid)) }
            return .connectAfresh
        }
        let restored = await restoreTaken(
            taken, position: position, namespace, pid: pid, offset: offset, auth: auth, recovery: recovery, logger: logger
        )
        guard restored else {
            if !cluster.isLeaving { durable.keeper.record(.removed(pid: pid)) }
            return .connectAfresh
        }
        return .restored
    }

    /// Gives the session `taken` (in the store, by this server) back to the client.
    private func restoreTaken(
        _ taken: TakenClusterSession,
        position given: ClusterFrontier?,
        _ namespace: Namespace,
        pid: String,
        offset: String?,
        auth: JSONObject?,
        recovery: ConnectionStateRecovery,
        logger: Logger
    ) async -> Bool {
        guard let durable = namespace.durable, let cluster = namespace.cluster else { return false }
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
        guard let position = given ?? taken.session.roomsOffset.flatMap(ClusterFrontier.init(offset:)) else {
            logger.debug("cannot recover without an offset: the session does not say where its rooms last changed")
            return false
        }

        guard await durable.catchUp(to: position, namespace: namespace.name, own: cluster.uid, logger: logger) else { return false }

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
            namespace.add(socket, rooms: taken.session.rooms, roomsOffset: taken.session.roomsOffset)
            return cursor.frontier
        }
        let replayed: [(offset: String, frames: [EngineFrame])]
        do {
            // This server's own events up to `reached` are in the journal once published.
            try await durable.bounded("publishing", { try await cluster.publishAwaiting(.none(.heartbeat)) })
            let messages = try await durable.journal(from: position, to: reached, since: taken.createdAt, namespace: namespace.name)
            replayed = DurableSessions.replay(messages, from: position, rooms: Set(taken.session.rooms)) { event, items, offset in
                namespace.encodeEvent(event, items: items, offset: offset)
            }
        } catch {
            logger.warning("cannot recover: the cluster's journal could not be read", metadata: ["error": "\(error)"])
            namespace.forget(socket.id)
            return false
        }
        if let tooMuch = DurableSessions.replayTooLarge(replayed, recovery: recovery, maxBytes: environment.configuration.maxQueuedBytes) {
            // Sent at once, it would overflow the connection's queue: the client would be
            // disconnected, come back with the same offset and overflow again, for ever.
            logger.warning("cannot recover: \(tooMuch)", metadata: ["socketio.id": "\(socket.id)"])
            namespace.forget(socket.id)
            return false
        }
        logger.debug("recovered a session from the cluster", metadata: [
            "socketio.id": "\(socket.id)", "socketio.replayed": "\(replayed.count)", "socketio.cluster.from": "\(taken.owner)",
        ])
        socket.outbox.open(replaying: replayed, reply: EngineFrame.frames(of: SocketPacket.connectReply(namespace.name, id: socket.id, pid: pid)))
        await joined(socket)
        return true
    }
}
