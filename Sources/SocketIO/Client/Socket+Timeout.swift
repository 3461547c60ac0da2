import SocketIOProtocol

extension Socket {
    /// The emits of this socket with an ack deadline, as socket.io's
    /// `socket.timeout(5000).emitWithAck(…)`:
    ///
    /// ```swift
    /// let reply = try await socket.timeout(.seconds(5)).emitWithAck("echo", "hi")
    /// ```
    ///
    /// The same as passing `timeout:` to ``emitWithAck(_:_:timeout:)``.
    public func timeout(_ timeout: Duration) -> TimedEmitter {
        TimedEmitter(socket: self, timeout: timeout)
    }
}

/// A socket with an ack deadline, made by ``Socket/timeout(_:)``.
public struct TimedEmitter: Sendable {
    /// The socket the emits go through.
    public let socket: Socket
    /// How long each emit waits for its ack.
    public let timeout: Duration

    /// Sends an event and waits at most ``timeout`` for its ack; returns the ack's items.
    ///
    /// - Throws: ``SocketIOError/ackTimeout``, or ``SocketIOError/disconnected(_:)`` when the
    ///   connection drops first.
    public func emitWithAck(_ event: String, _ items: JSONValue...) async throws(SocketIOError) -> [JSONValue] {
        try await socket.emitWithAck(event, items: items, timeout: timeout)
    }

    /// Sends an event and waits at most ``timeout`` for its ack; returns the ack's items.
    public func emitWithAck(_ event: String, items: [JSONValue]) async throws(SocketIOError) -> [JSONValue] {
        try await socket.emitWithAck(event, items: items, timeout: timeout)
    }

    /// Sends an event and decodes the ack's first item as `T`, waiting at most ``timeout``.
    public func emitWithAck<T: Decodable>(_ event: String, items: [JSONValue], as type: T.Type) async throws(SocketIOError) -> T {
        try await socket.emitWithAck(event, items: items, timeout: timeout, as: type)
    }
}
