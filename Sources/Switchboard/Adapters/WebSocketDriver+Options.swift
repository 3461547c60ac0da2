import SwitchboardCore
public import Logging
import SocketIOProtocol

extension WebSocketDriver {
    /// How a ``WebSocketDriver`` connects. Every field has a default.
    ///
    /// ```swift
    /// var options = WebSocketDriver.Options()
    /// options.headers = [(name: "Authorization", value: "Bearer \(token)")]
    /// options.trustRoots = .pemFile("test-ca.pem")
    /// let driver = WebSocketDriver(url: URL(string: "wss://example.com/ws")!, options: options)
    /// ```
    public struct Options: Sendable {
        /// Extra HTTP headers on the upgrade request (e.g. `Authorization`, `User-Agent`). No
        /// `Origin` is sent unless listed here.
        public var headers: [(name: String, value: String)] = []
        /// Which certificates `wss` trusts: the system's, or your own (self-signed test servers).
        public var trustRoots: TrustRoots = .system
        /// TCP keep-alive, and on Apple platforms the paths the connection may use.
        public var network = NetworkSettings()
        /// How long opening (TCP, TLS and the WebSocket upgrade) may take; a network timer on
        /// the connection's event loop, not ``clock``.
        public var connectTimeout: Duration = .seconds(20)
        /// The timeout ``WebSocketDriver/request(_:_:)`` uses.
        public var requestTimeout: Duration = .seconds(20)
        /// The largest message accepted from the server, in bytes; a larger one closes the connection.
        public var maxMessageSize: Int = 16 << 20
        /// The clock request timeouts run on; inject a test clock in tests.
        public var clock: any Clock<Duration> = ContinuousClock()
        /// Where the driver logs; silent unless you pass your own.
        public var logger = Logger.disabled("switchboard.websocket")

        /// Options with every default.
        public init() {}
    }
}
