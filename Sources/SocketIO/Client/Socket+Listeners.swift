import SwitchboardCore
import NIOConcurrencyHelpers
import SocketIOProtocol

extension Socket {
    /// Calls `handler` for every `event` from the server. Reserved events work too: `connect`
    /// (no items), `disconnect` (the reason), `connect_error` (message, data).
    @discardableResult
    public func on(_ event: String, _ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: inner.withLockedValue { $0.listeners.add(event, once: false, handler) })
    }

    /// Calls `handler` for the next `event` only.
    @discardableResult
    public func once(_ event: String, _ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: inner.withLockedValue { $0.listeners.add(event, once: true, handler) })
    }

    /// Removes one listener.
    public func off(_ id: ListenerID) {
        inner.withLockedValue { $0.listeners.remove(id.value) }
    }

    /// Removes every listener of `event`.
    public func off(_ event: String) {
        inner.withLockedValue { $0.listeners.removeAll(named: event) }
    }

    /// Calls `handler` for every incoming event, before the named listeners.
    @discardableResult
    public func onAny(_ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: inner.withLockedValue { $0.listeners.addAny(handler) })
    }

    /// Removes every catch-all listener.
    public func offAny() {
        inner.withLockedValue { $0.listeners.removeAllAny() }
    }

    /// Calls `handler` for every event as it is handed to the connection (buffered emits when
    /// they are flushed, not when buffered).
    @discardableResult
    public func onAnyOutgoing(_ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: inner.withLockedValue { $0.listeners.addAnyOutgoing(handler) })
    }

    /// Removes every outgoing catch-all listener.
    public func offAnyOutgoing() {
        inner.withLockedValue { $0.listeners.removeAllAnyOutgoing() }
    }

    /// The `event`s from the server as an async sequence; it ends when the task stops iterating
    /// or the manager is closed (``Manager/close()``).
    public func events(named event: String) -> AsyncStream<SocketEvent> {
        let (stream, continuation) = AsyncStream<SocketEvent>.makeStream()
        let id = on(event) { continuation.yield($0) }
        endOnClose(id, continuation.finish)
        continuation.onTermination = { [weak self] _ in self?.streamEnded(id) }
        return stream
    }

    /// Every event from the server as an async sequence; it ends when the task stops iterating
    /// or the manager is closed.
    public func allEvents() -> AsyncStream<SocketEvent> {
        let (stream, continuation) = AsyncStream<SocketEvent>.makeStream()
        let id = onAny { continuation.yield($0) }
        endOnClose(id, continuation.finish)
        continuation.onTermination = { [weak self] _ in self?.streamEnded(id) }
        return stream
    }

    private func endOnClose(_ id: ListenerID, _ finish: @escaping @Sendable () -> Void) {
        inner.withLockedValue { $0.streamEnders[id.value] = finish }
    }

    private func streamEnded(_ id: ListenerID) {
        off(id)
        _ = inner.withLockedValue { $0.streamEnders.removeValue(forKey: id.value) }
    }

    /// Ends every async sequence made by this socket (its manager was closed).
    func finishStreams() {
        let (enders, observers) = inner.withLockedValue { inner in
            defer { inner.streamEnders = [:] }
            return (Array(inner.streamEnders.values), inner.statusObservers.takeAll())
        }
        for end in enders { end() }
        for observer in observers { observer.finish() }
    }

    /// The `event`s from the server with their first item decoded as `T`.
    ///
    /// An item that does not decode ends the sequence with ``SocketIOError/payloadConversion(_:)``.
    public func events<T: Decodable & Sendable>(named event: String, as type: T.Type) -> AsyncThrowingStream<T, any Error> {
        let (stream, continuation) = AsyncThrowingStream<T, any Error>.makeStream()
        let id = on(event) { event in
            do {
                continuation.yield(try Socket.decode(T.self, from: event.items.first ?? .null))
            } catch {
                continuation.finish(throwing: error)
            }
        }
        endOnClose(id) { continuation.finish() }
        continuation.onTermination = { [weak self] _ in self?.streamEnded(id) }
        return stream
    }

    /// Status changes from now on, starting with the current status; the sequence ends when the
    /// manager is closed.
    public var statusChanges: AsyncStream<SocketStatus> {
        observerStream(of: self, \.inner, \.statusObservers) { $0.machine.status }
    }
}
