import SwitchboardCore
import SocketIOProtocol

extension NamespaceConnection {
    /// Starts one ack wait, or a place in the retry queue (each try waiting `timeout` or the
    /// `defaultAckTimeout`); `complete` hears the ack, the timeout or the disconnect exactly
    /// once. Without retries, `timeout` `nil` means no deadline: the caller ends the wait
    /// (``cancelWait(_:)``).
    func startAck(
        _ event: String, items: [JSONValue], timeout: Duration?,
        complete: @escaping @Sendable (Result<[JSONValue], SocketIOError>) -> Void
    ) throws(SocketIOError) -> AckWait {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        let retries = manager.configuration.retries
        let sentAt = ContinuousClock.now
        let metrics = manager.metrics
        let counted: @Sendable (Result<[JSONValue], SocketIOError>) -> Void = { result in
            if case .success = result { metrics.ackRoundTrip(ContinuousClock.now - sentAt) }
            complete(result)
        }
        guard retries > 0 else { return .ack(sendWithAck(event, items: items, timeout: timeout, complete: counted)) }
        let each = timeout ?? manager.configuration.defaultAckTimeout
        return .queued(try enqueueRetrying(event, items: items, timeout: each, retries: retries, complete: counted))
    }

    /// Ends a wait before its answer: its caller hears ``SocketIOError/ackTimeout`` (a wait
    /// that had ended already is left alone).
    func cancelWait(_ wait: AckWait) {
        switch wait {
        case .ack(let id):
            transition { $0.machine.removeBuffered(ackID: id) }
            failAcks(ids: [id], with: .ackTimeout)
        case .queued(let sequence):
            cancelRetrying(sequence)
        }
    }

    /// Sends one event with an ack id; `complete` hears the ack, the timeout (none with
    /// `timeout` `nil`), or the disconnect — exactly once. Returns the ack id.
    @discardableResult
    func sendWithAck(
        _ event: String, items: [JSONValue], timeout: Duration?,
        complete: @escaping @Sendable (Result<[JSONValue], SocketIOError>) -> Void
    ) -> Int {
        let id = transition { $0.machine.makeAckID() }
        let deadline = timeout.map { timeout in
            PendingReplies<Int, [JSONValue], SocketIOError>.Deadline(after: timeout, on: manager.timeline) { [weak self] id in
                // Not sent yet: it must not go out after its caller gave up.
                self?.transition { $0.machine.removeBuffered(ackID: id) }
                return .ackTimeout
            }
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

/// What an `emitWithAck` caller waits for: an ack id, or a place in the retry queue.
enum AckWait: Sendable {
    case ack(Int)
    case queued(Int)
}
