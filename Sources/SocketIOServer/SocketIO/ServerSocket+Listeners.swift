import NIOConcurrencyHelpers
extension ServerSocket {
    /// Calls `handler` for every `event` the client sends. Reserved names (`connect`,
    /// `disconnect`) are never delivered here: use ``onDisconnect(_:)``.
    @discardableResult
    public func on(_ event: String, _ handler: @escaping @Sendable (ServerEvent) -> Void) -> ServerListenerID {
        state.withLockedValue { state in
            guard state.disconnectReason == nil else { return ServerListenerID(value: -1) }
            state.nextListenerID += 1
            state.listeners[event, default: []].append((state.nextListenerID, handler))
            return ServerListenerID(value: state.nextListenerID)
        }
    }

    /// Calls `handler` for every event the client sends, before the named handlers.
    @discardableResult
    public func onAny(_ handler: @escaping @Sendable (ServerEvent) -> Void) -> ServerListenerID {
        state.withLockedValue { state in
            guard state.disconnectReason == nil else { return ServerListenerID(value: -1) }
            state.nextListenerID += 1
            state.anyListeners.append((state.nextListenerID, handler))
            return ServerListenerID(value: state.nextListenerID)
        }
    }

    /// Removes one handler.
    public func off(_ id: ServerListenerID) {
        state.withLockedValue { state in
            for (event, listeners) in state.listeners {
                state.listeners[event] = listeners.filter { $0.id != id.value }
            }
            state.anyListeners.removeAll { $0.id == id.value }
        }
    }

    /// Removes every handler of `event`.
    public func off(_ event: String) {
        _ = state.withLockedValue { $0.listeners.removeValue(forKey: event) }
    }

    /// Calls `handler` once when the socket leaves its namespace, with socket.io's reason. Added
    /// after the socket left, it is called at once.
    public func onDisconnect(_ handler: @escaping @Sendable (ServerDisconnectReason) -> Void) {
        let reason: ServerDisconnectReason? = state.withLockedValue { state in
            if let reason = state.disconnectReason { return reason }
            state.disconnectHandlers.append(handler)
            return nil
        }
        if let reason { handler(reason) }
    }

    /// The client's `event`s as an async sequence; it ends when the socket disconnects or the
    /// task stops iterating.
    public func events(named event: String) -> AsyncStream<ServerEvent> {
        let (stream, continuation) = AsyncStream<ServerEvent>.makeStream()
        let id = on(event) { continuation.yield($0) }
        onDisconnect { _ in continuation.finish() }
        continuation.onTermination = { [weak self] _ in self?.off(id) }
        return stream
    }
}
