import Logging
import SocketIOProtocol

extension DurableSessions {
    /// Waits until this server has delivered every message of the other servers that
    /// `position` names and the journal has (what never reached the journal — a dead server's
    /// last events — cannot come), at most ``catchUpLimit``. `false` when the journal cannot be
    /// read.
    func catchUp(to position: ClusterFrontier, namespace: String, own uid: String, logger: Logger) async -> Bool {
        let own = ClusterFrontier.tag(uid)
        let others = position.seen.filter { $0.key != own }
        guard !others.isEmpty else { return true }
        let journaled: [String: UInt64]
        do {
            let (store, origins) = (self.store, others.keys.sorted())
            journaled = try await bounded("reading the journal", {
                try await store.lastJournaled(namespace: namespace, origins: origins)
            })
        } catch {
            logger.warning("cannot recover: the cluster's journal could not be read", metadata: ["error": "\(error)"])
            return false
        }
        var targets: [String: UInt64] = [:]
        for (origin, number) in others {
            if let last = journaled[origin] { targets[origin] = min(number, last) }
        }
        if !(await order.wait(until: targets, within: Self.catchUpLimit, clock: clock)) {
            logger.warning("recovering before this server caught up with the cluster", metadata: ["targets": "\(targets)"])
        }
        return true
    }

    /// The journaled messages numbered after `position` up to `reached` (bounded by
    /// ``storeLimit``).
    func journal(from position: ClusterFrontier, to reached: ClusterFrontier, since: String, namespace: String) async throws -> [ClusterMessage] {
        var ranges: [ClusterJournalRange] = []
        for (origin, through) in reached.seen.sorted(by: { $0.key < $1.key }) {
            let after = position.seen[origin]
            if let after, after >= through { continue }
            ranges.append(ClusterJournalRange(origin: origin, after: after, through: through))
        }
        guard !ranges.isEmpty else { return [] }
        let (store, selected) = (self.store, ranges)
        return try await bounded("reading the journal", {
            try await store.journal(namespace: namespace, ranges: selected, since: since)
        })
    }

    /// The events among `messages` (numbered after `position`) addressed to a session in
    /// `rooms`, each encoded (by `encode`) with its offset.
    static func replay(
        _ messages: [ClusterMessage],
        from position: ClusterFrontier,
        rooms: Set<String>,
        encode: (_ event: String, _ items: [JSONValue], _ offset: String) -> [EngineFrame]
    ) -> [(offset: String, frames: [EngineFrame])] {
        var current = position
        var replayed: [(offset: String, frames: [EngineFrame])] = []
        for message in messages {
            // One its frontier passed already is left: a row the journal holds twice (a batch
            // written again after its NOTIFY failed), or one the client had.
            guard let sequence = message.sequence, current.advance(message.uid, to: sequence) else { continue }
            guard case .broadcast(let packet, let options, nil)? = try? message.payload, !options.isVolatile,
                  let event = packet.event, selects(options, rooms: rooms) else { continue }
            let offset = current.offset
            replayed.append((offset, encode(event, packet.items, offset)))
        }
        return replayed
    }

    /// Why `replayed` cannot be sent to a recovering client, if it cannot: more events than a
    /// session keeps here (``ConnectionStateRecovery/maxStoredPackets``, the bound of a
    /// recovery on the same server), or more bytes than may wait for one client
    /// (``SocketIOServer/Configuration/maxQueuedBytes``).
    static func replayTooLarge(_ replayed: [(offset: String, frames: [EngineFrame])], recovery: ConnectionStateRecovery, maxBytes: Int) -> String? {
        guard replayed.count <= recovery.maxStoredPackets else {
            return "\(replayed.count) events missed, more than maxStoredPackets (\(recovery.maxStoredPackets))"
        }
        let bytes = replayed.reduce(0) { sum, event in event.frames.reduce(sum) { $0 + $1.size } }
        guard bytes <= maxBytes else {
            return "\(bytes) bytes of missed events, more than maxQueuedBytes (\(maxBytes))"
        }
        return nil
    }
}
