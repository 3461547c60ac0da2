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
        let (frames, offset) = namespace.encodeEvent(event, items: items, storable: !volatile)
        return outbox.deliver(frames, offset: offset)
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
        let clock = namespace.environment.clock
        let ackID = ManagedAckID()
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[JSONValue], any Error>) in
                    let registered: Result<Int, SocketIOServerError> = state.withLockedValue { state in
                        if let reason = state.disconnectReason { return .failure(.disconnected(reason)) }
                        guard state.pendingAcks.count < limit else { return .failure(.tooManyPendingAcks(limit)) }
                        let id = state.nextAckID
                        state.nextAckID += 1
                        state.pendingAcks[id] = PendingAck(continuation: continuation, timer: nil)
                        return .success(id)
                    }
                    let id: Int
                    switch registered {
                    case .failure(let error):
                        continuation.resume(throwing: error)
                        return
                    case .success(let registeredID):
                        id = registeredID
                    }
                    ackID.set(id)
                    let timer = Task { [weak self] in
                        do { try await clock.sleep(timeout) } catch { return }
                        self?.failAck(id, with: .ackTimeout)
                    }
                    let stillPending = state.withLockedValue { state in
                        state.pendingAcks[id]?.timer = timer
                        return state.pendingAcks[id] != nil
                    }
                    if !stillPending { timer.cancel() }
                    if Task.isCancelled { failAck(id, with: .ackTimeout) }
                    let packet = SocketPacket.event(event, items, namespace: namespace.name, id: id)
                    outbox.deliver(EngineFrame.frames(of: packet), offset: nil)
                }
            } onCancel: {
                if let id = ackID.value { self.failAck(id, with: .ackTimeout) }
            }
        } catch let error as SocketIOServerError {
            throw error
        } catch {
            throw .ackTimeout
        }
    }

    /// Fails a pending ack (timeout, cancellation).
    func failAck(_ id: Int, with error: SocketIOServerError) {
        let pending = state.withLockedValue { $0.pendingAcks.removeValue(forKey: id) }
        pending?.timer?.cancel()
        pending?.continuation.resume(throwing: error)
    }

    /// How many acknowledgements this socket is waiting for.
    public var pendingAckCount: Int { state.withLockedValue { $0.pendingAcks.count } }
}

/// The ack id of one `emitWithAck`, known once registered (for its cancellation handler).
private final class ManagedAckID: Sendable {
    private let box = NIOLockedValueBox<Int?>(nil)
    var value: Int? { box.withLockedValue { $0 } }
    func set(_ id: Int) { box.withLockedValue { $0 = id } }
}
