import Logging
import NIOConcurrencyHelpers
public import SocketIOProtocol

/// A set of a namespace's sockets to emit to: rooms to include, rooms to leave out, and the
/// sender to skip (socket.io's `io.to(…).except(…)`, `socket.broadcast`).
///
/// ```swift
/// chat.to("room1").to("room2").except("muted").emit("news", "hello")
/// socket.broadcast.emit("joined", .string(socket.id))   // everyone but the sender
/// socket.to("lobby").emit("typing")                      // the lobby, but not the sender
/// ```
///
/// The event is encoded once and the same bytes go to every recipient's queue. In a cluster
/// (``SocketIOServer/Configuration/adapter``) every operation also reaches the selected sockets
/// of the other servers, unless narrowed with ``local``.
public struct BroadcastOperator: Sendable {
    let namespace: Namespace
    var rooms: Set<String> = []
    var exceptRooms: Set<String> = []
    var excluding: String?
    var isVolatile = false
    var isLocal = false

    init(namespace: Namespace, excluding: String? = nil) {
        self.namespace = namespace
        self.excluding = excluding
    }

    /// Narrows to sockets in `room` (several `to` calls make a union).
    public func to(_ room: String) -> BroadcastOperator {
        var copy = self
        copy.rooms.insert(room)
        return copy
    }

    /// Narrows to sockets in any of `rooms`.
    public func to(_ rooms: some Sequence<String>) -> BroadcastOperator {
        var copy = self
        copy.rooms.formUnion(rooms)
        return copy
    }

    /// Same as ``to(_:)-(String)`` (socket.io's `in`).
    public func `in`(_ room: String) -> BroadcastOperator { to(room) }

    /// Leaves out sockets in `room`.
    public func except(_ room: String) -> BroadcastOperator {
        var copy = self
        copy.exceptRooms.insert(room)
        return copy
    }

    /// Emits without storing for recovery; sockets that are not connected miss it.
    public var volatile: BroadcastOperator {
        var copy = self
        copy.isVolatile = true
        return copy
    }

    /// Only this server's sockets, even in a cluster (socket.io's `local`).
    public var local: BroadcastOperator {
        var copy = self
        copy.isLocal = true
        return copy
    }

    /// The cluster to tell, unless only this server is concerned.
    private var cluster: NamespaceCluster? { isLocal ? nil : namespace.cluster }

    private var clusterOptions: ClusterBroadcastOptions {
        namespace.clusterOptions(rooms: rooms, except: exceptRooms, excluding: excluding, volatile: isVolatile)
    }

    /// Sends an event to every selected socket.
    @discardableResult
    public func emit(_ event: String, _ items: JSONValue...) -> Int {
        emit(event, items: items)
    }

    /// Sends an event to every selected socket; returns how many connected sockets of this
    /// server it was sent to. In a cluster it is also published to the other servers, in order
    /// with this server's other cluster messages; one that cannot be published within
    /// ``ClusterOptions/publishTimeout`` is logged as an error (use ``emitAndConfirm(_:items:)``
    /// to be told).
    @discardableResult
    public func emit(_ event: String, items: [JSONValue]) -> Int {
        guard !SocketPacket.reservedEventNames.contains(event) else {
            namespace.environment.logger.warning("not emitting a reserved event name", metadata: ["socketio.event": "\(event)"])
            return 0
        }
        let payload = ClusterPayload.broadcast(packet: ClusterPacket(event: event, items: items, namespace: namespace.name), options: clusterOptions, requestId: nil)
        if let cluster, let durable = namespace.durable, !isVolatile {
            // Numbered and delivered in one step, so its offset says what the clients had.
            let (sent, writes) = durable.order.inOrder { cursor in
                let sequence = try? cluster.publishNumbered(payload).get()
                if let sequence { cursor.advance(cluster.uid, to: sequence) }
                return queueLocally(event, items: items, numberedOffset: cursor.offset(numbered: sequence != nil))
            }
            for write in writes { write.perform() }
            return sent
        }
        cluster?.publish(payload)
        return emitLocally(event, items: items)
    }

    /// Sends an event like ``emit(_:items:)`` and returns once the other servers of the cluster
    /// were sent it (at once with the in-process adapter).
    ///
    /// - Throws: ``ClusterError/publishFailed(_:)`` when it could not be published within
    ///   ``ClusterOptions/publishTimeout`` (this server's sockets got it all the same).
    @discardableResult
    public func emitAndConfirm(_ event: String, items: [JSONValue]) async throws(ClusterError) -> Int {
        guard !SocketPacket.reservedEventNames.contains(event) else { return 0 }
        let payload = ClusterPayload.broadcast(packet: ClusterPacket(event: event, items: items, namespace: namespace.name), options: clusterOptions, requestId: nil)
        if let cluster, let durable = namespace.durable, !isVolatile {
            let sent = NIOLockedValueBox(0)
            let result: Result<Void, ClusterError> = await withCheckedContinuation { continuation in
                let (count, writes, queued) = durable.order.inOrder { cursor in
                    let queued = cluster.publishNumbered(payload, caller: continuation)
                    let sequence = try? queued.get()
                    if let sequence { cursor.advance(cluster.uid, to: sequence) }
                    let (count, writes) = queueLocally(event, items: items, numberedOffset: cursor.offset(numbered: sequence != nil))
                    return (count, writes, queued)
                }
                for write in writes { write.perform() }
                sent.withLockedValue { $0 = count }
                if case .failure(let refusal) = queued { continuation.resume(returning: .failure(refusal)) }
            }
            try result.get()
            return sent.withLockedValue { $0 }
        }
        let sent = emitLocally(event, items: items)
        try await cluster?.publishAwaiting(payload)
        return sent
    }

    /// Sends the event to this server's selected sockets, encoded once; returns how many it was
    /// sent to. `numberedOffset` is the offset of a numbered event (sessions kept in the
    /// cluster: called in delivery order, so it must not be empty, or the namespace's next
    /// offset would be taken under the order's lock); without it the event gets the namespace's
    /// next offset, unless volatile.
    func emitLocally(_ event: String, items: [JSONValue], numberedOffset: String? = nil) -> Int {
        let (sent, writes) = queueLocally(event, items: items, numberedOffset: numberedOffset)
        for write in writes { write.perform() }
        return sent
    }

    /// ``emitLocally(_:items:numberedOffset:)`` without starting the writes: they are handed
    /// back, for a caller in delivery order to start once it released the order's lock.
    func queueLocally(_ event: String, items: [JSONValue], numberedOffset: String? = nil) -> (sent: Int, writes: [SendFollowUp]) {
        let recipients = namespace.recipients(rooms: rooms, except: exceptRooms, excluding: excluding)
        guard !recipients.isEmpty else { return (0, []) }
        let frames: [EngineFrame]
        let offset: String?
        if let numberedOffset {
            (frames, offset) = (namespace.encodeEvent(event, items: items, offset: numberedOffset), numberedOffset)
        } else {
            (frames, offset) = namespace.encodeEvent(event, items: items, storable: !isVolatile)
        }
        // Protocol v4 clients get the event without the recovery offset (encoded once, if any).
        var withoutOffset: [EngineFrame]?
        var sent = 0
        var writes: [SendFollowUp] = []
        for recipient in recipients {
            let queued: (sent: Bool, followUp: SendFollowUp?)
            if offset != nil, !recipient.outbox.takesOffsets {
                let plain = withoutOffset ?? EngineFrame.frames(of: .event(event, items, namespace: namespace.name))
                withoutOffset = plain
                queued = recipient.outbox.queue(plain, offset: nil)
            } else {
                queued = recipient.outbox.queue(frames, offset: offset)
            }
            if queued.sent { sent += 1 }
            if let write = queued.followUp { writes.append(write) }
        }
        namespace.metrics.eventsSent(sent)
        return (sent, writes)
    }

    /// The selected sockets of this server that are connected.
    public var sockets: [ServerSocket] {
        namespace.recipients(rooms: rooms, except: exceptRooms, excluding: excluding).compactMap(\.socket)
    }

    /// Describes the selected sockets of every server of the cluster (this server's only with
    /// the in-process adapter or ``local``).
    ///
    /// - Throws: ``ClusterError/timedOut(missing:)`` when a server does not answer in time
    ///   (default ``ClusterOptions/requestTimeout``).
    public func fetchSockets(timeout: Duration? = nil) async throws(ClusterError) -> [RemoteSocket] {
        let local = namespace.describe(sockets)
        guard let cluster else { return local }
        return try await cluster.fetchSockets(options: clusterOptions, local: local, timeout: timeout)
    }

    /// Makes the selected sockets join `room`, on every server.
    public func socketsJoin(_ room: String) {
        cluster?.publish(.socketsJoin(options: clusterOptions, rooms: [room]))
        for socket in sockets { socket.join(room) }
    }

    /// Makes the selected sockets leave `room`, on every server.
    public func socketsLeave(_ room: String) {
        cluster?.publish(.socketsLeave(options: clusterOptions, rooms: [room]))
        for socket in sockets { socket.leave(room) }
    }

    /// Disconnects the selected sockets, on every server (`close: true` also closes their
    /// connections).
    public func disconnectSockets(close: Bool = false) {
        cluster?.publish(.disconnectSockets(options: clusterOptions, close: close))
        for socket in sockets { socket.disconnect(close: close) }
    }
}
