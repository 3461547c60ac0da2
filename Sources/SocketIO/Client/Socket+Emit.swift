import NIOConcurrencyHelpers
import Foundation
import SocketIOProtocol

extension Socket {
    /// Sends an event with these items. While not connected the emit is buffered (in order) and
    /// sent after the next CONNECT reply.
    ///
    /// - Throws: ``SocketIOError/reservedEventName(_:)`` for `connect`, `disconnect`, …;
    ///   ``SocketIOError/notConnected`` when the offline buffer is full.
    public func emit(_ event: String, _ items: JSONValue...) throws(SocketIOError) {
        try emit(event, items: items)
    }

    /// Sends an event with these items (see ``emit(_:_:)``).
    public func emit(_ event: String, items: [JSONValue]) throws(SocketIOError) {
        try send(.event(event, items, namespace: namespace), event: event)
    }

    /// Sends an event whose single item is `value` encoded as JSON (`Data` fields become binary
    /// attachments).
    public func emit<T: Encodable>(_ event: String, encoding value: T) throws(SocketIOError) {
        try emit(event, items: [Self.encode(value)])
    }

    /// Sends an event and waits for the server's acknowledgement; returns its items.
    ///
    /// - Parameter timeout: how long to wait; the manager's `defaultAckTimeout` when `nil`.
    /// - Throws: ``SocketIOError/ackTimeout`` when no ack arrives in time;
    ///   ``SocketIOError/disconnected(_:)`` when the connection drops first.
    public func emitWithAck(_ event: String, _ items: JSONValue..., timeout: Duration? = nil) async throws(SocketIOError) -> [JSONValue] {
        try await emitWithAck(event, items: items, timeout: timeout)
    }

    /// Sends an event and waits for the acknowledgement (see ``emitWithAck(_:_:timeout:)``).
    public func emitWithAck(_ event: String, items: [JSONValue], timeout: Duration? = nil) async throws(SocketIOError) -> [JSONValue] {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        let timeout = timeout ?? manager.configuration.defaultAckTimeout
        let id = inner.withLockedValue { $0.machine.makeAckID() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[JSONValue], any Error>) in
                    inner.withLockedValue { $0.pendingAcks[id] = PendingAck(continuation: continuation, timeout: nil) }
                    let timer = scheduleAckTimeout(id: id, after: timeout)
                    let stillPending = inner.withLockedValue { inner in
                        inner.pendingAcks[id]?.timeout = timer
                        return inner.pendingAcks[id] != nil
                    }
                    if !stillPending { timer.cancel() }
                    if Task.isCancelled {
                        failAcks(ids: [id], with: .ackTimeout)
                        return
                    }
                    do throws(SocketIOError) {
                        try send(.event(event, items, namespace: namespace, id: id), event: event)
                    } catch {
                        failAcks(ids: [id], with: error)
                    }
                }
            } onCancel: {
                self.failAcks(ids: [id], with: .ackTimeout)
            }
        } catch let error as SocketIOError {
            throw error
        } catch {
            throw .ackTimeout
        }
    }

    /// Sends an event and decodes the ack's first item as `T`.
    public func emitWithAck<T: Decodable>(
        _ event: String, items: [JSONValue], timeout: Duration? = nil, as type: T.Type
    ) async throws(SocketIOError) -> T {
        let reply = try await emitWithAck(event, items: items, timeout: timeout)
        return try Self.decode(T.self, from: reply.first ?? .null)
    }

    private func send(_ packet: SocketPacket, event: String) throws(SocketIOError) {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        let action = inner.withLockedValue { $0.machine.emit(packet) }
        switch action {
        case .send(let packet):
            guard manager.write(packet) else {
                // The connection went away before the socket heard: keep it for the next connect.
                inner.withLockedValue { $0.machine.requeue(packet) }
                return
            }
            reportOutgoing([packet])
        case .buffered:
            return
        case .refuse:
            throw .notConnected
        }
    }

    private func scheduleAckTimeout(id: Int, after timeout: Duration) -> Task<Void, Never> {
        let clock = manager.configuration.clock
        return Task { [weak self] in
            do {
                try await clock.sleep(for: timeout)
            } catch {
                return
            }
            guard let self else { return }
            inner.withLockedValue { $0.machine.removeBuffered(ackID: id) }
            failAcks(ids: [id], with: .ackTimeout)
        }
    }

    static func encode<T: Encodable>(_ value: T) throws(SocketIOError) -> JSONValue {
        do {
            return try JSONValueEncoder().encode(value)
        } catch {
            throw .payloadConversion("cannot encode \(T.self): \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(SocketIOError) -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: value)
        } catch {
            throw .payloadConversion("cannot decode \(T.self): \(error)")
        }
    }
}
