import SwitchboardCore
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

    /// Sends an event only if it can go out now (socket.io's `volatile` flag): while the socket
    /// is not connected it is dropped, never buffered — for data that is stale by the time a
    /// connection comes back (positions, typing indicators).
    ///
    /// - Returns: whether the event was written; `false` means it was dropped.
    @discardableResult
    public func emitVolatile(_ event: String, _ items: JSONValue...) throws(SocketIOError) -> Bool {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        guard connected else { return false }
        let packet = SocketPacket.event(event, items, namespace: namespace)
        guard manager.write(packet) else { return false }
        reportOutgoing([packet])
        return true
    }

    /// Sends an event whose single item is `value` encoded as JSON (`Data` fields become binary
    /// attachments).
    public func emit<T: Encodable>(_ event: String, encoding value: T) throws(SocketIOError) {
        try emit(event, items: [Self.encode(value)])
    }

    /// Sends an event and waits for the server's acknowledgement; returns its items.
    ///
    /// - Parameters:
    ///   - event: the event name.
    ///   - items: the event's arguments.
    ///   - timeout: how long to wait; the manager's `defaultAckTimeout` when `nil`.
    /// - Throws: ``SocketIOError/ackTimeout`` when no ack arrives in time;
    ///   ``SocketIOError/disconnected(_:)`` when the connection drops first.
    public func emitWithAck(_ event: String, _ items: JSONValue..., timeout: Duration? = nil) async throws(SocketIOError) -> [JSONValue] {
        try await emitWithAck(event, items: items, timeout: timeout)
    }

    /// Sends an event and waits for the acknowledgement (see ``emitWithAck(_:_:timeout:)``).
    ///
    /// With ``Manager/Configuration/retries`` above zero the emit joins the socket's ordered retry
    /// queue: one emit in flight at a time, each try waits `timeout`, a failed try (timeout or
    /// lost connection) is sent again — with a new ack id — until acknowledged or `retries`
    /// extra tries failed; then this throws the last try's error. The server may see an emit
    /// more than once (at-least-once): give payloads an id and de-duplicate there.
    public func emitWithAck(_ event: String, items: [JSONValue], timeout: Duration? = nil) async throws(SocketIOError) -> [JSONValue] {
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

    /// Sends an event and decodes the ack's first item as `T`.
    public func emitWithAck<T: Decodable>(
        _ event: String, items: [JSONValue], timeout: Duration? = nil, as type: T.Type
    ) async throws(SocketIOError) -> T {
        let reply = try await emitWithAck(event, items: items, timeout: timeout)
        return try Self.decode(T.self, from: reply.first ?? .null)
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
