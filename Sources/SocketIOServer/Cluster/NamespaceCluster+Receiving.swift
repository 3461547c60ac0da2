import Logging
import SocketIOProtocol
import SwitchboardCore

/// Receiving: another server's message, applied through the namespace; and liveness.
extension NamespaceCluster {
    // MARK: - Receiving

    /// Applies one message from the channel.
    func receive(_ message: ClusterMessage) {
        let now = clock.now()
        let delivery: Machine.Delivery
        switch transition({ $0.arrived(message, at: now) }) {
        case .ignored:
            return
        case .duplicate:
            metrics?.clusterDuplicateDropped()
            return
        case .fresh(let fresh):
            delivery = fresh
        }
        if delivery.missed > 0 {
            metrics?.clusterMessagesMissed(delivery.missed)
            logger.warning(
                "cluster messages lost",
                metadata: ["socketio.cluster.from": "\(message.uid)", "socketio.cluster.missed": "\(delivery.missed)"]
            )
        }
        if delivery.joined {
            logger.info("cluster server joined", metadata: ["socketio.cluster.node": "\(message.uid)"])
        }
        perform(delivery.effects)
        let payload: ClusterPayload
        do {
            payload = try message.payload
        } catch {
            logger.warning("skipping a malformed cluster message", metadata: ["error": "\(error)", "socketio.cluster.from": "\(message.uid)"])
            return
        }
        guard let receiver = delivery.receiver else { return }
        let origin = message.sequence.map { ClusterOrigin(uid: message.uid, sequence: $0) }
        if let origin, !payload.isPlainBroadcast { receiver.clusterAdvance(origin) }
        apply(payload, from: message.uid, origin: origin, through: receiver)
    }

    /// Applies another server's `payload` through the namespace, answers what asks for it.
    private func apply(_ payload: ClusterPayload, from sender: String, origin: ClusterOrigin?, through receiver: any ClusterReceiver) {
        switch payload {
        case .none(.initialHeartbeat):
            publish(.none(.heartbeat))
        case .none(.adapterClose):
            perform(transition { $0.serverLeft(sender) })
        case .none:
            break
        case .broadcast(let packet, let selection, nil):
            receiver.clusterBroadcast(packet, options: selection, origin: origin)
        case .broadcast(let packet, let selection, let requestId?):
            receiver.clusterBroadcastWithAck(
                packet, options: selection,
                onCount: { [weak self] count in self?.publish(.broadcastClientCount(requestId: requestId, count: count)) },
                onAck: { [weak self] value in self?.publish(.broadcastAck(requestId: requestId, value: value)) }
            )
        case .socketsJoin(let selection, let rooms):
            receiver.clusterJoin(options: selection, rooms: rooms)
        case .socketsLeave(let selection, let rooms):
            receiver.clusterLeave(options: selection, rooms: rooms)
        case .disconnectSockets(let selection, let close):
            receiver.clusterDisconnect(options: selection, close: close)
        case .fetchSockets(let selection, let requestId):
            let sockets = receiver.clusterSockets(options: selection)
            publish(.fetchSocketsResponse(requestId: requestId, sockets: sockets))
        case .serverSideEmit(let packet, nil):
            receiver.clusterServerSideEmit(packet, reply: nil)
        case .serverSideEmit(let packet, let requestId?):
            // One answer per server, as socket.io's: the first reply is published, later ones ignored.
            let once = OnceFlag()
            receiver.clusterServerSideEmit(packet) { [weak self] value in
                guard once.claim() else { return }
                self?.publish(.serverSideEmitResponse(requestId: requestId, value: value))
            }
        case .fetchSocketsResponse(let requestId, let sockets):
            settle(transition { $0.answer(requestId, from: sender, values: sockets.map(\.json)) })
        case .serverSideEmitResponse(let requestId, let value):
            settle(transition { $0.answer(requestId, from: sender, values: [value]) })
        case .broadcastClientCount(let requestId, let count):
            transition { $0.listener(requestId) }?.onCount(count)
        case .broadcastAck(let requestId, let value):
            transition { $0.listener(requestId) }?.onAck(value)
        }
    }

    // MARK: - Liveness

    /// Every second, forgets the servers silent for longer than the heartbeat timeout.
    func livenessLoop() async {
        while !Task.isCancelled {
            do { try await clock.sleep(.seconds(1)) } catch { return }
            let now = clock.now()
            let (forgotten, effects) = transition { $0.forgetSilent(at: now) }
            for uid in forgotten {
                logger.info("cluster server seems down, forgetting it", metadata: ["socketio.cluster.node": "\(uid)"])
            }
            perform(effects)
        }
    }
}

extension ClusterPayload {
    /// A broadcast without acknowledgements (the kind connection state recovery replays).
    var isPlainBroadcast: Bool {
        if case .broadcast(_, _, nil) = self { return true }
        return false
    }
}
