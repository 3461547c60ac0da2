extension SocketIOServer {
    /// How the server behaves. Defaults follow socket.io's JavaScript server (`engine.io` 6.x).
    ///
    /// ```swift
    /// var configuration = SocketIOServer.Configuration()
    /// configuration.pingInterval = .seconds(10)
    /// configuration.recovery = .enabled(maxDisconnectionDuration: .seconds(120))
    /// configuration.allowedOrigins = .list(["https://app.example.com"])
    /// ```
    public struct Configuration: Sendable {
        /// The Engine.IO path; requests to it (with or without the trailing slash) are Socket.IO.
        public var path: String
        /// How often the server pings each client (announced in the handshake; longer than
        /// `EngineHandshake.longestHeartbeatMilliseconds`, what clients accept, counts as that).
        public var pingInterval: Duration
        /// How long a client has to answer a ping before its session closes (bounded likewise).
        public var pingTimeout: Duration
        /// How long a WebSocket probing an upgrade has to send `upgrade` before it is closed.
        public var upgradeTimeout: Duration
        /// The largest POST body and WebSocket message accepted, in bytes (announced in the
        /// handshake). A larger POST gets 413; a larger WebSocket message (its fragments together)
        /// closes the connection with status 1009.
        public var maxPayload: Int
        /// How long a new session may stay without joining any namespace before it is closed.
        public var connectTimeout: Duration
        /// Which browser origins may use the server (CORS). See ``AllowedOrigins``.
        public var allowedOrigins: AllowedOrigins
        /// The transports clients may use.
        public var transports: Set<TransportKind>
        /// Connection state recovery; `nil` (the default) turns it off.
        public var recovery: ConnectionStateRecovery?
        /// The plain WebSocket endpoint's path (`nil` turns it off); quiet clients are pinged.
        public var plainWebSocketPath: String?
        /// The most bytes that may wait for one client (WebSocket queue or polling buffer);
        /// a client that falls further behind is disconnected.
        public var maxQueuedBytes: Int
        /// The most packets in one polling response (python-socketio's client accepts 16).
        public var maxPacketsPerPoll: Int
        /// The most `emitWithAck` calls that may wait for one socket's answers at once.
        public var maxPendingAcks: Int
        /// The most binary attachments accepted in one packet.
        public var maxAttachments: Int
        /// How long a new connection may take to send its first complete request head; a
        /// connection that sends nothing, or not HTTP, is closed after it. It also bounds how
        /// long ``SocketIOServer/stop()`` can be held by such a connection (it closes them at once).
        public var requestHeadTimeout: Duration
        /// The clock for heartbeats, timeouts and recovery windows; inject a test clock in tests.
        public var clock: any Clock<Duration>
        /// The most Engine.IO sessions open at once (Socket.IO and raw ones together); the next
        /// polling handshake is refused with 403 `{"code":4,"message":"Too many sessions"}` (a
        /// WebSocket one by refusing the upgrade: 400, with the same body) until one closes. `nil` (the default,
        /// like socket.io's server): no limit.
        public var maxSessions: Int?
        /// Whether a connection's messages are read, decoded and handed to the app's
        /// handlers on the connection's own event loop (a task preferring it), so that an event
        /// and the reply the handler writes never cross threads — the fewest context switches
        /// and the lowest latency, as socket.io's single-threaded Node server does. On by
        /// default. The price: a handler that computes for long (without awaiting) holds up the
        /// other connections of that loop, as it would hold up a Node server; set it to `false`
        /// for such handlers, which then run on the concurrency pool, one task per burst of
        /// messages (four to five times the server's context switches, `Benchmarks/README.md`).
        /// Long-polling too: an HTTP connection's requests are served by a task preferring its
        /// event loop (not on a server mounted with `httpServer()`, whose connections also
        /// carry the app's routes).
        public var handlersOnEventLoop: Bool
        /// Whether Engine.IO v3 clients (socket.io 2.x's client and everything pinned to it,
        /// python-socketio 4.x) are served, as socket.io's `allowEIO3`: Engine.IO v3 (client
        /// pings, v3 polling payloads) with Socket.IO protocol v4 on it (`/` joined at once,
        /// auth from the namespace's query). Off by default, as in socket.io: such a client
        /// gets `{"code":5,"message":"Unsupported protocol version"}`.
        public var allowEIO3: Bool
        /// The most sessions open at once from one IP address; the next is refused with 403
        /// `{"code":4,"message":"Too many sessions from this address"}` (a WebSocket upgrade:
        /// 400, with the same body). `nil` (the default): no limit.
        public var maxSessionsPerAddress: Int?
        /// Where broadcasts, rooms and socket queries reach: this process only
        /// (``ServerAdapter/inProcess``, the default) or every server of a cluster
        /// (``ServerAdapter/cluster(_:_:)`` over a ``ClusterTransport``, e.g. PostgreSQL).
        public var adapter: ServerAdapter

        /// A configuration; every parameter has socket.io's default.
        public init(
            path: String = "/socket.io/",
            pingInterval: Duration = .seconds(25),
            pingTimeout: Duration = .seconds(20),
            upgradeTimeout: Duration = .seconds(10),
            maxPayload: Int = 1_000_000,
            connectTimeout: Duration = .seconds(45),
            allowedOrigins: AllowedOrigins = .unrestricted,
            transports: Set<TransportKind> = [.polling, .websocket],
            recovery: ConnectionStateRecovery? = nil,
            plainWebSocketPath: String? = "/ws",
            maxQueuedBytes: Int = 4 << 20,
            maxPacketsPerPoll: Int = 16,
            maxPendingAcks: Int = 1_000,
            maxAttachments: Int = 10,
            requestHeadTimeout: Duration = .seconds(10),
            clock: any Clock<Duration> = ContinuousClock(),
            maxSessions: Int? = nil,
            maxSessionsPerAddress: Int? = nil,
            allowEIO3: Bool = false,
            handlersOnEventLoop: Bool = true,
            adapter: ServerAdapter = .inProcess
        ) {
            self.path = path
            self.pingInterval = pingInterval
            self.pingTimeout = pingTimeout
            self.upgradeTimeout = upgradeTimeout
            self.maxPayload = maxPayload
            self.connectTimeout = connectTimeout
            self.allowedOrigins = allowedOrigins
            self.transports = transports
            self.recovery = recovery
            self.plainWebSocketPath = plainWebSocketPath
            self.maxQueuedBytes = maxQueuedBytes
            self.maxPacketsPerPoll = maxPacketsPerPoll
            self.maxPendingAcks = maxPendingAcks
            self.maxAttachments = maxAttachments
            self.requestHeadTimeout = requestHeadTimeout
            self.clock = clock
            self.maxSessions = maxSessions
            self.maxSessionsPerAddress = maxSessionsPerAddress
            self.allowEIO3 = allowEIO3
            self.handlersOnEventLoop = handlersOnEventLoop
            self.adapter = adapter
        }

        /// How long an HTTP connection may go without a byte from the client while it sends a
        /// request (a body that stalls) or between requests (an idle keep-alive connection)
        /// before it is closed; a long-poll GET being answered is not idle. The heartbeat makes
        /// a healthy polling client send at least every `pingInterval`, so this is
        /// `pingInterval + pingTimeout`, and never less than ``requestHeadTimeout``.
        var connectionIdleTimeout: Duration {
            max(heartbeat.interval + heartbeat.timeout, requestHeadTimeout)
        }

        /// ``pingInterval`` and ``pingTimeout`` as sessions keep and announce them (bounded).
        var heartbeat: (interval: Duration, timeout: Duration) {
            (min(pingInterval, EngineHandshake.longestHeartbeat), min(pingTimeout, EngineHandshake.longestHeartbeat))
        }

        /// The Engine.IO path with exactly one leading and one trailing slash.
        var normalizedPath: String { EnginePath.normalized(path) }
    }

    /// An Engine.IO transport.
    public enum TransportKind: String, Sendable, Hashable, CaseIterable {
        /// HTTP long-polling.
        case polling
        /// WebSocket.
        case websocket
    }
}

/// Connection state recovery (socket.io 4.6+): a client that lost its connection gets its
/// session back — same socket id, rooms and data — and the events it missed, if it reconnects
/// within ``maxDisconnectionDuration``.
///
/// With recovery on, every event emitted without an ack and not volatile carries an offset as its
/// last argument and is kept (at most ``maxStoredPackets`` per session, for at most
/// ``maxDisconnectionDuration``), and the CONNECT reply carries a private session id (`pid`).
/// Only drops the client did not ask for (transport close or error, ping timeout, server
/// shutdown) are recoverable; explicit disconnects are not.
///
/// A client that had been sent no event yet has no offset to send back (socket.io's clients
/// then send the `pid` alone), so socket.io's server gives it a fresh session. Ours gives it
/// its session and every event sent to it since, as long as none of them left the log (and,
/// across a cluster, from where its rooms last changed: ``ClusterSession/roomsOffset``).
public struct ConnectionStateRecovery: Sendable, Hashable {
    /// How long a dropped session is kept for its client.
    public var maxDisconnectionDuration: Duration
    /// How many emitted events each session keeps for replay.
    public var maxStoredPackets: Int

    /// A configuration; every parameter has socket.io's default.
    public init(maxDisconnectionDuration: Duration = .seconds(120), maxStoredPackets: Int = 1_000) {
        self.maxDisconnectionDuration = maxDisconnectionDuration
        self.maxStoredPackets = maxStoredPackets
    }

    /// Recovery on, with socket.io's default window of 120 s.
    public static func enabled(
        maxDisconnectionDuration: Duration = .seconds(120),
        maxStoredPackets: Int = 1_000
    ) -> ConnectionStateRecovery {
        ConnectionStateRecovery(maxDisconnectionDuration: maxDisconnectionDuration, maxStoredPackets: maxStoredPackets)
    }
}

/// Which browser origins may call the server (CORS).
///
/// - ``unrestricted`` (default) behaves like socket.io's JS server without its `cors` option:
///   no CORS headers are sent and every request is served, with or without an `Origin` header.
///   Browsers then refuse cross-origin polling responses (WebSockets are not subject to CORS);
///   native clients, which send no `Origin`, are unaffected.
/// - ``list(_:)`` answers preflight `OPTIONS` requests and sets `Access-Control-Allow-Origin`
///   for the listed origins (`https://app.example.com`, scheme and port included), and refuses
///   requests and WebSocket upgrades from any other origin with 403. Requests without `Origin`
///   (native clients) are served.
/// - ``any`` allows every origin, echoing it back.
public enum AllowedOrigins: Sendable, Hashable {
    /// No CORS headers, every request served (socket.io's default).
    case unrestricted
    /// Every origin allowed, echoed back.
    case any
    /// These origins only (scheme, host and port).
    case list(Set<String>)
}
