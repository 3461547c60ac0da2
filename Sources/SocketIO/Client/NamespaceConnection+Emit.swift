import SwitchboardCore
import SocketIOProtocol

extension NamespaceConnection {
    /// ``Socket/emitWithAck(_:items:timeout:)``: one ack wait, or a place in the retry queue.
    func emitWithAck(_ event: String, items: [JSONValue], timeout: Duration?) async throws(SocketIOError) -> [JSONValue] {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        let timeout = timeout ?? manager.configuration.defaultAckTimeout
        let retries = manager.configuration.retries
        // Cancelling the caller ends its wait like a timeout (and takes a queued emit out).
        let started = CancellationTarget<AckWait>()
        let sentAt = ContinuousClock.now
        let result: Result<[JSONValue], SocketIOError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let complete: @Sendable (Result<[JSONValue], SocketIOError>) -> Void = { continuation.resume(returning: $0) }
                let wait: AckWait = retries > 0
                    ? .queued(enqueueRetrying(event, items: items, timeout: timeout, retries: retries, complete: complete))
                    : .ack(sendWithAck(event, items: items, timeout: timeout, complete: complete))
                if started.register(wait) { cancelWait(wait) }
            }
        } onCancel: {
            if let wait = started.cancel() { self.cancelWait(wait) }
        }
        if case .success = result { manager.metrics.ackRoundTrip(ContinuousClock.now - sentAt) }
        return try result.get()
    }

    /// What an `emitWithAck` caller waits for.
    enum AckWait: Sendable {
        case ack(Int)
        case queued(Int)
    }

    private func cancelWait(_ wait: AckWait) {
        switch wait {
        case .ack(let id):
            transition { $0.machine.removeBuffered(ackID: id) }
            failAcks(ids: [id], with: .ackTimeout)
        case .queued(let sequence):
            cancelRetrying(sequence)
        }
    }

    /// Sends one event with an ack id; `complete` hears the ack, the timeout, or the disconnect —
    /// exactly once. Returns the ack id.
    @discardableResult
    func sendWithAck(
        _ event: String, items: [JSONValue], timeout: Duration,
        complete: @escaping @Sendable (Result<[JSONValue], SocketIOError>) -> Void
    ) -> Int {
        let id = transition { $0.machine.makeAckID() }
        let deadline = PendingReplies<Int, [JSONValue], SocketIOError>.Deadline(after: timeout, on: manager.timeline) { [weak self] id in
            // Not sent yet: it must not go out after its caller gave up.
            self?.transition { $0.machine.removeBuffered(ackID: id) }
            return .ackTimeout
        }
        pendingAcks.add(id, deadline: deadline, complete: complete)
        do throws(SocketIOError) {
            try send(.event(event, items, namespace: namespace, id: id), event: event)
        } catch {
            failAcks(ids: [id], with: error)
        }
        return id
    }

    func send(_ packet: SocketPacket, event: String) throws(SocketIOError) {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        let action = transition { $0.machine.emit(packet) }
        switch action {
        case .send(let packet):
            guard manager.write(packet) else {
                // The connection went away before the socket heard: keep it for the next connect.
                transition { $0.machine.requeue(packet) }
                return
            }
            reportOutgoing([packet])
        case .buffered:
            return
        case .refuse:
            throw .notConnected
        }
    }
}
