import Logging
import SwitchboardCore
import NIOConcurrencyHelpers
extension ServerSocket {
    /// Calls `handler` for every `event` the client sends. Reserved names (`connect`,
    /// `disconnect`) are never delivered here: use ``onDisconnect(_:)``.
    @discardableResult
    public func on(_ event: String, _ handler: @escaping @Sendable (ServerEvent) -> Void) -> ServerListenerID {
        state.withLockedValue { state in
            guard state.disconnectReason == nil else { return ServerListenerID(value: -1) }
            return ServerListenerID(value: state.listeners.add(event, once: false, handler))
        }
    }

    /// Calls `handler` for every event the client sends, before the named handlers.
    @discardableResult
    public func onAny(_ handler: @escaping @Sendable (ServerEvent) -> Void) -> ServerListenerID {
        state.withLockedValue { state in
            guard state.disconnectReason == nil else { return ServerListenerID(value: -1) }
            return ServerListenerID(value: state.listeners.addAny(handler))
        }
    }

    /// Removes one handler.
    public func off(_ id: ServerListenerID) {
        state.withLockedValue { state in
            state.listeners.remove(id.value)
            // The handler of an `events(named:)` stream: its end on disconnect goes with it.
            state.disconnectHandlers.removeAll { $0.stream == id.value }
        }
    }

    /// Removes every handler of `event`.
    public func off(_ event: String) {
        state.withLockedValue { $0.listeners.removeAll(named: event) }
    }

    /// Calls `handler` once when the socket leaves its namespace, with socket.io's reason. Added
    /// after the socket left, it is called at once.
    public func onDisconnect(_ handler: @escaping @Sendable (ServerDisconnectReason) -> Void) {
        onDisconnect(stream: nil, handler)
    }

    /// Adds a disconnect handler, of the stream whose listener is `stream` if set.
    private func onDisconnect(stream: Int?, _ handler: @escaping @Sendable (ServerDisconnectReason) -> Void) {
        let reason: ServerDisconnectReason? = state.withLockedValue { state in
            if let reason = state.disconnectReason { return reason }
            state.disconnectHandlers.append((stream, handler))
            return nil
        }
        if let reason { handler(reason) }
    }

    /// The client's `event`s as an async sequence; it ends when the socket disconnects or the
    /// task stops iterating.
    ///
    /// At most `limit` events wait for the task: a client that sends faster than it iterates for
    /// longer has its connection closed (a transport error, logged), rather than growing the
    /// server's memory without end or losing events without a word.
    public func events(named event: String, bufferingUpTo limit: Int = 4_096) -> AsyncStream<ServerEvent> {
        let (stream, continuation) = AsyncStream<ServerEvent>.makeStream(bufferingPolicy: .bufferingOldest(max(limit, 1)))
        let id = on(event) { [weak self] received in
            guard case .dropped = continuation.yield(received) else { return }
            self?.client.session.logger.warning("closing: an events(named:) stream fell behind", metadata: [
                "socketio.event": "\(event)", "socketio.limit": "\(limit)",
            ])
            self?.client.session.close(.transportError("more than \(limit) \"\(event)\" events waiting for events(named:)"))
        }
        onDisconnect(stream: id.value) { _ in continuation.finish() }
        // Removes the listener and the disconnect handler: a stream dropped early keeps neither.
        continuation.onTermination = { [weak self] _ in self?.off(id) }
        return stream
    }
}
