import SocketIOProtocol

/// Receiving: what another server's message changes, servers leaving, and liveness.
extension ClusterState {
    /// What to do with a message from the channel.
    enum Arrival {
        /// This server's own, or another namespace's: skipped.
        case ignored
        /// Had already (a retried publish, a journal catch-up): dropped.
        case duplicate
        /// Apply it.
        case fresh(Delivery)
    }

    /// A fresh message: what its arrival changed, and whom to apply it through.
    struct Delivery {
        /// Messages of its sender that never came before it (gaps in its numbering).
        var missed = 0
        /// Its sender is a server not known until now.
        var joined = false
        var effects = Effects()
        /// The namespace, while the adapter is started; `nil`: nothing is applied.
        var receiver: (any ClusterReceiver)?
    }

    /// `message` arrived at `now`: checks its number against what came before from its sender,
    /// and notes that the sender (a server) is alive.
    mutating func arrived(_ message: ClusterMessage, at now: Duration) -> Arrival {
        guard message.uid != uid, message.namespace == namespace else { return .ignored }
        var delivery = Delivery(receiver: receiver)
        if let sequence = message.sequence {
            guard let gap = numbering.arrived(sequence, from: message.uid) else { return .duplicate }
            delivery.missed = gap
        }
        // socket.io's emitters publish as "emitter": broadcasts to deliver, never a server to
        // count or to wait for (socket.io-adapter's EMITTER_UID).
        guard message.uid != NamespaceCluster.emitterUID else { return .fresh(delivery) }
        delivery.joined = nodes.updateValue(now, forKey: message.uid) == nil
        if delivery.joined { serversChanged(&delivery.effects) }
        return .fresh(delivery)
    }

    /// Server `uid` said goodbye (`ADAPTER_CLOSE`): it is forgotten at once.
    mutating func serverLeft(_ uid: String) -> Effects {
        var effects = Effects()
        forget(uid, &effects)
        serversChanged(&effects)
        return effects
    }

    /// The liveness check at `now`: forgets the servers silent for longer than the heartbeat
    /// timeout (returned, to log).
    mutating func forgetSilent(at now: Duration) -> (forgotten: [String], effects: Effects) {
        let silent = nodes.filter { now - $0.value > options.heartbeatTimeout }.map(\.key)
        var effects = Effects()
        guard !silent.isEmpty else { return ([], effects) }
        for uid in silent { forget(uid, &effects) }
        serversChanged(&effects)
        return (silent, effects)
    }

    /// Forgets `uid`; the requests it alone held up complete. Its number is kept a while
    /// (``ClusterNumbering/forget(_:isKnown:)``).
    private mutating func forget(_ uid: String, _ effects: inout Effects) {
        nodes.removeValue(forKey: uid)
        effects.completions += requests.forget(uid)
        numbering.forget(uid) { [nodes] in nodes[$0] != nil }
    }

    /// Server `uid` answered request `id` with `values`.
    mutating func answer(_ id: String, from uid: String, values: [JSONValue]) -> ClusterRequests.Completion? {
        requests.answer(id, from: uid, values: values)
    }

    /// The listener of broadcast `id` (a client count or an acknowledgement came for it).
    func listener(_ id: String) -> ClusterRequests.AckListener? {
        requests.listener(id)
    }
}
