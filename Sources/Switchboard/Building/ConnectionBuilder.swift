public import Foundation
public import SocketIOProtocol

/// The builder's stage before a URL was given: it has no `connect()`.
public struct MissingURL: Sendable {}

/// The builder's stage once it has a URL: complete, so it can connect.
public struct HasURL: Sendable {
    /// The server.
    public let url: URL
}

/// Sets a connection up step by step, in any order; the URL is required, and only a builder
/// that has one offers ``connect(using:)`` and ``lease(in:)``. So nobody can send on a
/// connection that was never set up: an incomplete builder does not compile.
///
/// ```swift
/// let connection = try await ConnectionBuilder()
///     .url(URL(string: "https://chat.example.com")!)
///     .namespace("/chat")
///     .auth(["token": "secret"])
///     .header("User-Agent", "Orders/2.1")
///     .transport(.webSocketOnly)
///     .connectTimeout(.seconds(10))
///     .connect()
///
/// // Without a URL there is nothing to connect:
/// // ConnectionBuilder().namespace("/chat").connect()
/// // error: referencing instance method 'connect(using:)' on 'ConnectionBuilder' requires the
/// //        types 'MissingURL' and 'HasURL' be equivalent
/// ```
public struct ConnectionBuilder<Stage: Sendable>: Sendable {
    /// What the builder knows of the URL: ``MissingURL`` or ``HasURL``.
    public let stage: Stage
    /// Every setting but the URL.
    private var settings: ConnectionBuilderSettings

    private init(stage: Stage, settings: ConnectionBuilderSettings) {
        self.stage = stage
        self.settings = settings
    }

    private func with(_ change: (inout ConnectionBuilderSettings) -> Void) -> Self {
        var copy = self
        change(&copy.settings)
        return copy
    }

    /// The Socket.IO namespace: by default the one the URL's path names, else `/`.
    public func namespace(_ namespace: String) -> Self { with { $0.namespace = namespace } }
    /// The Socket.IO path on the server (`/socket.io/` by default).
    public func path(_ path: String) -> Self { with { $0.path = path } }
    /// A static auth payload, sent on every connect.
    public func auth(_ object: JSONObject) -> Self { with { $0.auth = .static(object) } }
    /// An auth provider, called before every (re)connect; `id` names it for the pool.
    public func auth(id: String, _ provider: @escaping @Sendable () async throws -> JSONObject?) -> Self {
        with { $0.auth = .provider(id: id, provider) }
    }
    /// An auth provider of string values (`{ ["token": try await session.freshToken()] }`),
    /// called before every (re)connect; `id` names it for the pool.
    public func auth(id: String, _ provider: @escaping @Sendable () async throws -> [String: String]) -> Self {
        auth(id: id) { () async throws -> JSONObject? in
            JSONObject(try await provider().sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
        }
    }
    /// Adds an HTTP header to the connection's requests.
    public func header(_ name: String, _ value: String) -> Self {
        with { $0.headers.append(ConnectionHeader(name: name, value: value)) }
    }
    /// Which transports may be used (polling then WebSocket by default).
    public func transport(_ transport: ConnectionTransport) -> Self { with { $0.transport = transport } }
    /// How long one attempt to connect may take (20 s by default).
    public func connectTimeout(_ timeout: Duration) -> Self { with { $0.connectTimeout = timeout } }
    /// The timeout of requests made without one (20 s by default).
    public func requestTimeout(_ timeout: Duration) -> Self { with { $0.requestTimeout = timeout } }
    /// How many commands the offline queue holds (10,000 by default).
    public func maxQueuedCommands(_ limit: Int) -> Self { with { $0.maxQueuedCommands = limit } }
}

extension ConnectionBuilder where Stage == MissingURL {
    /// An empty builder: give it a ``url(_:)`` before it can connect.
    public init() {
        self.init(stage: MissingURL(), settings: ConnectionBuilderSettings())
    }

    /// The server to connect to; the builder is complete from here on.
    public func url(_ url: URL) -> ConnectionBuilder<HasURL> {
        ConnectionBuilder<HasURL>(stage: HasURL(url: url), settings: settings)
    }
}

extension ConnectionBuilder where Stage == HasURL {
    /// The configuration this builder describes (a ``ConnectionPool`` key).
    public var configuration: ConnectionConfiguration {
        var configuration = ConnectionConfiguration(url: stage.url, namespace: settings.namespace)
        configuration.path = settings.path
        configuration.auth = settings.auth
        configuration.headers = settings.headers
        configuration.transport = settings.transport
        configuration.connectTimeout = settings.connectTimeout
        configuration.requestTimeout = settings.requestTimeout
        configuration.maxQueuedCommands = settings.maxQueuedCommands
        return configuration
    }

    /// Makes the connection with `factory` and connects it: the one way to get a usable,
    /// unpooled ``Connection``. It is yours: disconnect and release it when done, and connect it
    /// again if it drops (or ``lease(in:)`` a pooled one, which the keeper looks after).
    ///
    /// - Throws: ``ConnectionError/invalidConfiguration(_:)``, or ``ConnectionError/connectFailed(_:)``
    ///   (the connection is released then).
    public func connect(using factory: any ConnectionFactory = .socketIO) async throws -> any Connection {
        let connection = try factory.makeConnection(for: configuration)
        do {
            try await connection.connect()
        } catch {
            try? await connection.disconnect()
            try? await connection.release()
            throw error
        }
        return connection
    }

    /// A lease on the pooled connection for this configuration in `manager`; the keeper connects it.
    public func lease(in manager: ConnectionManager = .shared) async throws -> ConnectionLease {
        try await manager.lease(configuration)
    }
}

/// Every builder setting but the URL (shared by both stages).
struct ConnectionBuilderSettings: Sendable {
    var namespace: String?
    var path = "/socket.io/"
    var auth = ConnectionAuth.none
    var headers: [ConnectionHeader] = []
    var transport = ConnectionTransport.pollingThenWebSocket
    var connectTimeout: Duration = .seconds(20)
    var requestTimeout: Duration = .seconds(20)
    var maxQueuedCommands = 10_000
}
