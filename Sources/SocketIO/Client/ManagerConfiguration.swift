import SwitchboardCore
public import Foundation
public import Logging

extension Manager {
    /// How a manager connects. Defaults follow socket.io's JavaScript client.
    public struct Configuration: Sendable {
        /// The Engine.IO path on the server.
        public var path: String = "/socket.io/"
        /// Extra query parameters on every Engine.IO request.
        public var query: [URLQueryItem] = []
        /// Extra HTTP headers on every request (e.g. `Authorization`, `User-Agent`, `Cookie`).
        public var extraHeaders: [(name: String, value: String)] = []
        /// The Engine.IO revision: `.v4` (socket.io 3.x/4.x), `.v3` (socket.io 2.x), or `.auto`
        /// (try v4, fall back to v3 when the server refuses it).
        public var version: EngineIOVersionChoice = .v4
        /// The transports: the first opens the session, `.websocket` after it is the upgrade target.
        /// socket.io's default: polling first, then upgrade.
        public var transports: [EngineTransportKind] = [.polling, .websocket]
        /// Whether to upgrade from polling to WebSocket when the server offers it.
        public var upgrade = true
        /// Open the next session directly on WebSocket if the last one upgraded successfully.
        public var rememberUpgrade = false
        /// Which certificates `https`/`wss` trust: the system's, or your own (self-signed test servers).
        public var trustRoots: TrustRoots = .system
        /// TCP keep-alive, and on Apple platforms the paths a connection may use (no expensive or
        /// constrained path, Multipath TCP): the WebSocket's and the polling requests' alike.
        public var network = NetworkSettings()
        /// An HTTP proxy for polling requests. WebSocket does not go through it, so a manager with
        /// a proxy stays on polling.
        public var proxy: HTTPProxy?
        /// Keep the cookies the server sets (on polling responses) for the manager's life and
        /// send them back on every polling request and WebSocket upgrade, as a browser does for
        /// its origin — what sticky sessions behind a load balancer need (HAProxy's `cookie`
        /// directive, socket.io's `cookie` option). On by default; socket.io's Node client keeps
        /// cookies only with `withCredentials`.
        public var storesCookies = true
        /// Add the `t` cache-busting parameter to polling requests (socket.io's default).
        public var timestampRequests = true
        /// The most packets one polling POST carries (python-socketio drops bigger batches).
        public var maxPacketsPerRequest = 16
        /// How long the Engine.IO handshake may take (socket.io's `timeout`, 20 s), and then each
        /// namespace's CONNECT (protocol v4's `/`, which the server joins on its own, included):
        /// one the server leaves unanswered fails `connect()` with
        /// ``SocketIOError/connectionFailed(_:)`` (socket.io's client waits for good), as does a
        /// server that sends more than 10,000 events to a namespace before accepting it.
        public var connectTimeout: Duration = .seconds(20)
        /// The acknowledgement timeout `emitWithAck` uses when given none.
        public var defaultAckTimeout: Duration = .seconds(20)
        /// The largest message accepted from the server, in bytes.
        public var maxInboundMessageSize: Int = 16 << 20
        /// At-least-once `emitWithAck` (socket.io's `retries`): how many times a try that was not
        /// acknowledged within its timeout (or whose connection dropped) is sent again. Above 0,
        /// acked emits go out one at a time, in order. 0 (the default) sends each once.
        public var retries = 0
        /// How many emits a socket holds while not connected; past it `emit` throws. With
        /// ``retries`` above 0, the retry queue of at-least-once emits is bounded by it too.
        public var sendBufferLimit: Int = 10_000
        /// Reconnect automatically after the transport closes or errs, or the heartbeat stops
        /// (never after the app's `disconnect()` or the server's `io server disconnect`).
        public var reconnection = true
        /// How many reconnection attempts before giving up (`nil`: unlimited, socket.io's default).
        public var reconnectionAttempts: Int?
        /// The first reconnection delay (socket.io's `reconnectionDelay`, 1 s).
        public var reconnectionDelay: Duration = .seconds(1)
        /// The longest reconnection delay (socket.io's `reconnectionDelayMax`, 5 s).
        public var reconnectionDelayMax: Duration = .seconds(5)
        /// How much each delay is randomised, 0...1 (socket.io's `randomizationFactor`, 0.5).
        public var randomizationFactor: Double = 0.5
        /// Where the backoff's randomness comes from: a value in `0..<1` per call.
        /// Inject a fixed source in tests.
        public var jitter: @Sendable () -> Double = { Double.random(in: 0..<1) }
        /// Where handlers run; `nil` means a new serial queue per manager.
        public var handlerExecutor: HandlerExecutor?
        /// The clock for timers (heartbeat, timeouts); inject a test clock in tests.
        public var clock: any Clock<Duration> = ContinuousClock()
        /// Watches the network path, so a connection whose route moved (Wi-Fi → cellular, an
        /// address replaced) is noticed in a moment instead of at the heartbeat's timeout, and no
        /// reconnection attempt is spent while there is no path. The platform's monitor by
        /// default; `nil` turns it off (the heartbeat alone then finds dead links).
        public var networkMonitor: (any NetworkMonitor)? = NetworkMonitors.system
        /// Where the manager logs; silent unless the app passes its own logger.
        public var logger = Logger.disabled("switchboard.socketio")

        /// A configuration with socket.io's defaults.
        public init() {}
    }
}
