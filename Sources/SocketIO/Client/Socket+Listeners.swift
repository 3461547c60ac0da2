import SwitchboardCore
import NIOConcurrencyHelpers
import SocketIOProtocol

extension Socket {
    /// Calls `handler` for every `event` from the server. Reserved events work too: `connect`
    /// (no items), `disconnect` (the reason), `connect_error` (message, data).
    @discardableResult
    public func on(_ event: String, _ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: listeners.registry { $0.add(event, once: false, handler) })
    }

    /// Calls `handler` for the next `event` only.
    @discardableResult
    public func once(_ event: String, _ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: listeners.registry { $0.add(event, once: true, handler) })
    }

    /// Removes one listener.
    public func off(_ id: ListenerID) {
        listeners.registry { $0.remove(id.value) }
    }

    /// Removes every listener of `event`.
    public func off(_ event: String) {
        listeners.registry { $0.removeAll(named: event) }
    }

    /// Calls `handler` for every incoming event, before the named listeners.
    @discardableResult
    public func onAny(_ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: listeners.registry { $0.addAny(handler) })
    }

    /// Removes every catch-all listener.
    public func offAny() {
        listeners.registry { $0.removeAllAny() }
    }

    /// Calls `handler` for every event as it is handed to the connection (buffered emits when
    /// they are flushed, not when buffered).
    @discardableResult
    public func onAnyOutgoing(_ handler: @escaping @Sendable (SocketEvent) -> Void) -> ListenerID {
        ListenerID(value: listeners.registry { $0.addAnyOutgoing(handler) })
    }

    /// Removes every outgoing catch-all listener.
    public func offAnyOutgoing() {
        listeners.registry { $0.removeAllAnyOutgoing() }
    }

    /// The `event`s from the server as an async sequence; it ends when the task stops iterating
    /// or the manager is closed (``Manager/close()``).
    public func events(named event: String) -> AsyncStream<SocketEvent> {
        let (stream, continuation) = AsyncStream<SocketEvent>.makeStream()
        let id = listeners.stream({ $0.add(event, once: false) { continuation.yield($0) } }, endedBy: continuation.finish)
        continuation.onTermination = { [weak self] _ in self?.listeners.streamEnded(id) }
        return stream
    }

    /// Every event from the server as an async sequence; it ends when the task stops iterating
    /// or the manager is closed.
    public func allEvents() -> AsyncStream<SocketEvent> {
        let (stream, continuation) = AsyncStream<SocketEvent>.makeStream()
        let id = listeners.stream({ $0.addAny { continuation.yield($0) } }, endedBy: continuation.finish)
        continuation.onTermination = { [weak self] _ in self?.listeners.streamEnded(id) }
        return stream
    }

    /// Ends every async sequence made by this socket (its manager was closed).
    func finishStreams() {
        let enders = listeners.takeStreamEnders()
        let observers = connection.transition { $0.statusObservers.takeCurrent() }
        for end in enders { end() }
        for observer in observers { observer.finish() }
    }

    /// The `event`s from the server with their first item decoded as `T`.
    ///
    /// An item that does not decode ends the sequence with ``SocketIOError/payloadConversion(_:)``.
    public func events<T: Decodable & Sendable>(named event: String, as type: T.Type) -> AsyncThrowingStream<T, any Error> {
        let (stream, continuation) = AsyncThrowingStream<T, any Error>.makeStream()
        let id = listeners.stream({ registry in
            registry.add(event, once: false) { event in
                do {
                    continuation.yield(try Socket.decode(T.self, from: event.items.first ?? .null))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }, endedBy: { continuation.finish() })
        continuation.onTermination = { [weak self] _ in self?.listeners.streamEnded(id) }
        return stream
    }

    /// Status changes from now on, starting with the current status; the sequence ends when the
    /// manager is next closed.
    public var statusChanges: AsyncStream<SocketStatus> {
        observerStream(of: connection, \.inner, \.statusObservers) { $0.machine.status }
    }
}
