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
        try connection.send(.event(event, items, namespace: namespace), event: event)
    }

    /// Sends an event only if it can go out now (socket.io's `volatile` flag): while the socket
    /// is not connected it is dropped, never buffered — for data that is stale by the time a
    /// connection comes back (positions, typing indicators).
    ///
    /// - Returns: whether the event was written; `false` means it was dropped.
    @discardableResult
    public func emitVolatile(_ event: String, _ items: JSONValue...) throws(SocketIOError) -> Bool {
        guard !SocketPacket.reservedEventNames.contains(event) else { throw .reservedEventName(event) }
        guard connection.connected else { return false }
        let packet = SocketPacket.event(event, items, namespace: namespace)
        guard connection.manager.write(packet) else { return false }
        connection.reportOutgoing([packet])
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
        let (connection, timeout) = (connection, timeout ?? connection.manager.configuration.defaultAckTimeout)
        // Cancelling the caller ends its wait like a timeout (and takes a queued emit out).
        let started = CancellationTarget<AckWait>()
        let result: Result<[JSONValue], SocketIOError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                do throws(SocketIOError) {
                    let wait = try connection.startAck(event, items: items, timeout: timeout) { continuation.resume(returning: $0) }
                    if started.register(wait) { connection.cancelWait(wait) }
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        } onCancel: {
            if let wait = started.cancel() { connection.cancelWait(wait) }
        }
        return try result.get()
    }

    /// For the platform layer's Socket.IO driver, whose connection keeps each request's one
    /// deadline: emits `event` with an ack id and no deadline of the socket's own (with
    /// ``Manager/Configuration/retries``, each try waits `defaultAckTimeout`). `complete` hears
    /// the ack or the disconnect, exactly once; the returned closure ends the wait (`complete`
    /// then hears ``SocketIOError/ackTimeout`` if it had heard nothing yet).
    ///
    /// - Throws: ``SocketIOError/reservedEventName(_:)`` (nothing was sent).
    package func emitAwaitingAck(
        _ event: String, items: [JSONValue],
        complete: @escaping @Sendable (Result<[JSONValue], SocketIOError>) -> Void
    ) throws(SocketIOError) -> @Sendable () -> Void {
        let wait = try connection.startAck(event, items: items, timeout: nil, complete: complete)
        return { [connection] in connection.cancelWait(wait) }
    }

    /// The acknowledgements the socket waits for now, and how many of them have a deadline of
    /// the socket's own (for the platform layer's tests).
    package var ackWaits: (count: Int, deadlines: Int) { (connection.pendingAcks.count, connection.pendingAcks.deadlineCount) }

    /// Sends an event and decodes the ack's first item as `T`.
    public func emitWithAck<T: Decodable>(
        _ event: String, items: [JSONValue], timeout: Duration? = nil, as type: T.Type
    ) async throws(SocketIOError) -> T {
        let reply = try await emitWithAck(event, items: items, timeout: timeout)
        return try Self.decode(T.self, from: reply.first ?? .null)
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
