import SwitchboardCore
import Logging
import NIOConcurrencyHelpers
public import SocketIOProtocol

extension ServerSocket {
    /// Sends an event to this client. With recovery on (and unless `volatile`) the event carries
    /// an offset as its last argument and is kept for replay.
    ///
    /// Returns `false` when nothing was sent: a reserved name (`connect`, `disconnect`, …), or
    /// the socket is not connected (with recovery on, a stored event still reaches the client
    /// if it recovers its session).
    @discardableResult
    public func emit(_ event: String, _ items: JSONValue...) -> Bool {
        emit(event, items: items)
    }

    /// Sends an event to this client (see ``emit(_:_:)``).
    @discardableResult
    public func emit(_ event: String, items: [JSONValue], volatile: Bool = false) -> Bool {
        guard !SocketPacket.reservedEventNames.contains(event) else {
            namespace.environment.logger.warning("not emitting a reserved event name", metadata: ["socketio.event": "\(event)"])
            return false
        }
        let delivered: Bool
        if !volatile, outbox.takesOffsets, let durable = namespace.durable, let cluster = namespace.cluster {
            // Sessions kept in the cluster: numbered like a broadcast to the socket's own room
            // (as socket.io's recovery stores it), so any server can replay it.
            let payload = ClusterPayload.broadcast(
                packet: ClusterPacket(event: event, items: items, namespace: namespace.name),
                options: ClusterBroadcastOptions(rooms: [id]), requestId: nil
            )
            let queued = durable.order.inOrder { cursor in
                let sequence = try? cluster.publishNumbered(payload).get()
                if let sequence { cursor.advance(cluster.uid, to: sequence) }
                let offset = cursor.offset(numbered: sequence != nil)
                return outbox.queue(namespace.encodeEvent(event, items: items, offset: offset), offset: offset)
            }
            queued.followUp?.perform()
            delivered = queued.sent
        } else {
            let (frames, offset) = namespace.encodeEvent(event, items: items, storable: !volatile && outbox.takesOffsets)
            delivered = outbox.deliver(frames, offset: offset)
        }
        if delivered { namespace.metrics.eventsSent(1) }
        return delivered
    }

    /// Sends an event and waits for the client's acknowledgement; returns its items.
    ///
    /// - Throws: ``SocketIOServerError/ackTimeout`` when no ack arrives within `timeout` (or
    ///   the task is cancelled); ``SocketIOServerError/disconnected(_:)`` when the socket leaves
    ///   first; ``SocketIOServerError/tooManyPendingAcks(_:)`` past the configured limit;
    ///   ``SocketIOServerError/reservedEventName(_:)``.
    public func emitWithAck(
        _ event: String,
        _ items: JSONValue...,
        timeout: Duration = .seconds(10)
    ) async throws(SocketIOServerError) -> [JSONValue] {
        try await emitWithAck(event, items: items, timeout: timeout)
    }

    /// Sends an event and waits for the acknowledgement (see ``emitWithAck(_:_:timeout:)``).
    public func emitWithAck(
        _ event: String,
        items: [JSONValue],
        timeout: Duration = .seconds(10)
    ) async throws(SocketIOServerError) -> [JSONValue] {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        let limit = namespace.environment.configuration.maxPendingAcks
        let deadline = PendingReplies<Int, [JSONValue], SocketIOServerError>.Deadline(
            after: timeout, on: namespace.environment.clock, expired: { _ in .ackTimeout }
        )
        let ackID = CancellationTarget<Int>()
        let sentAt = ContinuousClock.now
        let result: Result<[JSONValue], SocketIOServerError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let complete: @Sendable (Result<[JSONValue], SocketIOServerError>) -> Void = { continuation.resume(returning: $0) }
                let id: Int
                switch state.withLockedValue({ state -> Result<Int, SocketIOServerError> in
                    if let reason = state.disconnectReason { return .failure(.disconnected(reason)) }
                    defer { state.nextAckID += 1 }
                    return .success(state.nextAckID)
                }) {
                case .failure(let error):
                    complete(.failure(error))
                    return
                case .success(let next):
                    id = next
                }
                guard pendingAcks.add(id, deadline: deadline, limit: limit, complete: complete) else {
                    complete(.failure(.tooManyPendingAcks(limit)))
                    return
                }
                // The socket may have left between the check and the registration.
                if let reason = disconnectReason {
                    pendingAcks.settle(id, with: .failure(.disconnected(reason)))
                    return
                }
                if ackID.register(id) { pendingAcks.settle(id, with: .failure(.ackTimeout)) }
                let packet = SocketPacket.event(event, items, namespace: namespace.name, id: id)
                outbox.deliver(EngineFrame.frames(of: packet), offset: nil)
            }
        } onCancel: {
            if let id = ackID.cancel() { self.pendingAcks.settle(id, with: .failure(.ackTimeout)) }
        }
        if case .success = result { namespace.metrics.ackRoundTrip(ContinuousClock.now - sentAt) }
        return try result.get()
    }

    /// How many acknowledgements this socket is waiting for.
    public var pendingAckCount: Int { pendingAcks.count }
}
