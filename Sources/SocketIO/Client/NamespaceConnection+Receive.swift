import SwitchboardCore
import NIOConcurrencyHelpers
import SocketIOProtocol

extension NamespaceConnection {
    /// A packet for this namespace, from the manager (on the transport's thread).
    func received(_ packet: SocketPacket) {
        let action = transition { $0.machine.received(packet) }
        switch action {
        case .none:
            return
        case .connected(let id, let early, let flush):
            for packet in early { deliver(packet) }
            writeBuffered(flush)
            drainRetryQueue(force: true)
            publish(.connected(id: id))
            dispatch(SocketEvent(name: "connect", items: []), includeAny: false)
            resumeConnectWaiters(with: nil)
        case .connectFailed(let error):
            connectFailed(error)
        case .deliverEvent(let packet):
            deliver(packet)
        case .resolveAck(let id, let items):
            // An ack for an unknown id is ignored, as socket.io does.
            pendingAcks.settle(id, with: .success(items))
        case .withdraw:
            manager.write(SocketPacket(kind: .disconnect, namespace: namespace))
        case .disconnected(let reason):
            pendingAcks.failAll(with: .disconnected(reason))
            ended(reason, connectFailure: .disconnected(reason))
            // No automatic reconnection follows the server's disconnect: nothing queued can go.
            failRetryQueue(with: .disconnected(reason))
            manager.socketBecameInactive(self)
        }
    }

    /// Writes what was buffered while not connected, then what was emitted while that write ran,
    /// until none is left; what finds no connection waits for the next connect.
    private func writeBuffered(_ first: [SocketPacket]) {
        var batch = first
        while !batch.isEmpty {
            guard manager.write(batch) else {
                transition { $0.machine.flushFailed(batch) }
                return
            }
            reportOutgoing(batch)
            batch = transition { $0.machine.flushed() }
        }
    }

    private func deliver(_ packet: SocketPacket) {
        guard let name = packet.eventName else { return }
        let responder = packet.id.map { manager.ackResponder(namespace: namespace, id: $0) }
        dispatch(SocketEvent(name: name, items: packet.arguments, ack: responder), includeAny: true)
    }

    /// Runs the listeners of `event` on the executor (catch-alls first).
    func dispatch(_ event: SocketEvent, includeAny: Bool) {
        listeners.dispatch(event, includeAny: includeAny, on: manager.handlers)
    }

    /// Runs the catch-alls of outgoing events on the executor.
    func reportOutgoing(_ packets: [SocketPacket]) {
        listeners.reportOutgoing(packets, on: manager.handlers)
    }

    func connectFailed(_ error: SocketIOError) {
        let status = transition { $0.machine.status }
        publish(status)
        dispatch(SocketEvent(name: "connect_error", items: error.connectErrorItems), includeAny: false)
        resumeConnectWaiters(with: error)
        manager.socketBecameInactive(self)
    }

    /// The namespace ended: status, the `disconnect` (or `connect_error`) event, waiting callers.
    func ended(_ reason: DisconnectReason, connectFailure: SocketIOError) {
        // Also without connect() callers (startConnecting()): left, it would sleep out its timeout.
        transition { $0.takeEndedConnectDeadline() }?.cancel()
        let buffered = transition { $0.bufferedAckIDs }
        let sentAckIDs = pendingAcks.ids.filter { !buffered.contains($0) }
        // Acks whose packets were sent can no longer arrive; buffered ones wait for the resend.
        failAcks(ids: sentAckIDs, with: .disconnected(reason))
        let hadWaiters = transition { !$0.connectWaiters.isEmpty }
        publish(.disconnected(reason))
        if case .connectionFailed = connectFailure {
            dispatch(SocketEvent(name: "connect_error", items: [.string(connectFailure.description)]), includeAny: false)
        } else {
            dispatch(SocketEvent(name: "disconnect", items: [.string(reason.description)]), includeAny: false)
        }
        if hadWaiters { resumeConnectWaiters(with: connectFailure) }
    }

    func resumeConnectWaiters(with error: SocketIOError?) {
        let (waiters, deadline) = transition { $0.settleConnect() }
        deadline?.cancel()
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    func failAcks(ids: [Int], with error: SocketIOError) {
        pendingAcks.fail(ids, with: error)
    }

    func publish(_ status: SocketStatus) {
        transition { $0.statusObservers.yield(status) }
    }
}
