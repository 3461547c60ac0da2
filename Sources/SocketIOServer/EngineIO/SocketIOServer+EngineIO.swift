extension SocketIOServer {
    /// Serves raw Engine.IO at `path` (`/engine.io/`), beside Socket.IO on the same port: the
    /// same handshake options (``Configuration/pingInterval``, ``Configuration/pingTimeout``,
    /// ``Configuration/maxPayload``, transports and upgrade, CORS), the same limits, and
    /// `onConnection` called with each new ``EngineIOSocket`` before its first message is read.
    ///
    /// Socket.IO itself is one application on this layer; this is the layer without it, for
    /// peers that speak Engine.IO alone (socket.io's `engine.io-client`, the official
    /// `engine.io-protocol` test suite). Mount before ``start(host:port:)``; mounting a path
    /// again replaces its handler, and Socket.IO's own path cannot be taken.
    ///
    /// - Precondition: `path` is not Socket.IO's path.
    public func engineIO(at path: String, onConnection: @escaping @Sendable (EngineIOSocket) -> Void) {
        let normalized = EnginePath.normalized(path)
        precondition(normalized != core.environment.configuration.normalizedPath, "\(normalized) is Socket.IO's path")
        core.mountRaw(normalized, onConnection: onConnection)
    }
}
