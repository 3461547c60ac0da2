import SwitchboardCore
public import Logging

extension ConnectionFactory where Self == DriverConnectionFactory {
    /// Plain WebSocket connections speaking the JSON envelope (``WebSocketDriver``): the
    /// configuration's `url` is the WebSocket endpoint itself (for example `ws://host:3000/ws`);
    /// its headers and timeouts apply. There is no handshake payload on a plain WebSocket, so a
    /// configuration with `auth` is refused with ``ConnectionError/invalidConfiguration(_:)`` —
    /// send credentials as headers instead.
    ///
    /// ```swift
    /// let manager = ConnectionManager(factory: .plainWebSocket)
    /// ```
    public static var plainWebSocket: DriverConnectionFactory { plainWebSocket() }

    /// Plain WebSocket connections; `clock` measures request deadlines, `logger` gets the driver's logs.
    public static func plainWebSocket(
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger? = nil
    ) -> DriverConnectionFactory {
        let logger = logger ?? .disabled("switchboard.websocket")
        return DriverConnectionFactory(clock: clock, logger: logger) { configuration throws(ConnectionError) in
            switch configuration.auth {
            case .none:
                break
            case .static, .provider:
                throw .invalidConfiguration("a plain WebSocket has no auth payload; put credentials in headers")
            }
            var options = WebSocketDriver.Options()
            options.headers = configuration.headers.map { ($0.name, $0.value) }
            options.connectTimeout = configuration.connectTimeout
            options.requestTimeout = configuration.requestTimeout
            options.network = configuration.network
            options.clock = clock
            options.logger = logger
            return WebSocketDriver(url: configuration.url, options: options)
        }
    }
}
