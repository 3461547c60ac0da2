public import Foundation
public import SocketIOProtocol

/// Everything that decides what a connection is: where it goes and how. A
/// ``ConnectionBuilder`` produces it, a ``ConnectionFactory`` turns it into a ``Connection``, and
/// the ``ConnectionPool`` uses it as the key (equal configurations share one connection).
///
/// ```swift
/// var configuration = ConnectionConfiguration(url: URL(string: "http://localhost:3000")!)
/// configuration.namespace = "/chat"
/// configuration.auth = .static(["token": "secret"])
/// ```
public struct ConnectionConfiguration: Hashable, Sendable {
    /// The server (`http`, `https`, `ws` or `wss`).
    public var url: URL
    /// The Socket.IO namespace; ignored by technologies without namespaces. By default the one
    /// the URL's path names (`http://host:3000/chat` → `/chat`, as socket.io's `io(url)`), else
    /// `/`. A Socket.IO connection whose URL path names another namespace than this one is
    /// refused with ``ConnectionError/invalidConfiguration(_:)``.
    public var namespace: String
    /// The Socket.IO path on the server.
    public var path: String = "/socket.io/"
    /// What the connection presents when it connects.
    public var auth: ConnectionAuth = .none
    /// Extra HTTP headers on the connection's requests (for example `Authorization`).
    public var headers: [ConnectionHeader] = []
    /// Which transports the technology may use.
    public var transport: ConnectionTransport = .pollingThenWebSocket
    /// How long one attempt to open the connection may take.
    public var connectTimeout: Duration = .seconds(20)
    /// TCP keep-alive, and on Apple platforms the paths the connection may use (no expensive or
    /// constrained path, Multipath TCP): what a mobile app sets for a long-lived connection.
    public var network = NetworkSettings()
    /// The timeout of ``Connection/request(_:_:)`` when the caller gives none.
    public var requestTimeout: Duration = .seconds(20)
    /// How many commands the offline queue holds; past it `send` and `request` throw
    /// ``ConnectionError/queueFull(limit:)``.
    public var maxQueuedCommands: Int = 10_000

    /// A configuration for `url` and `namespace` (by default the one `url`'s path names, else
    /// `/`), with defaults for the rest.
    public init(url: URL, namespace: String? = nil) {
        self.url = url
        self.namespace = namespace.map(SocketNamespace.normalized) ?? SocketNamespace.named(by: url) ?? "/"
    }
}

/// One extra HTTP header.
public struct ConnectionHeader: Hashable, Sendable {
    /// The header name, as sent.
    public var name: String
    /// The header value.
    public var value: String

    /// A header `name: value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Which transports a connection may use.
public enum ConnectionTransport: String, Hashable, Sendable, CaseIterable {
    /// Open with HTTP long-polling, then upgrade to WebSocket (socket.io's default).
    case pollingThenWebSocket
    /// WebSocket only.
    case webSocketOnly
    /// HTTP long-polling only.
    case pollingOnly
}

/// What a connection presents when it connects (Socket.IO's `auth` payload).
///
/// Providers are compared by `id`: two configurations with the same provider id share a pooled
/// connection.
public enum ConnectionAuth: Hashable, Sendable {
    /// No auth payload.
    case none
    /// The same object every time.
    case `static`(JSONObject)
    /// Called before every (re)connect, so a token can be refreshed; `id` names it for the pool.
    case provider(id: String, @Sendable () async throws -> JSONObject?)

    /// Whether the two are the same (providers: the same `id`).
    public static func == (lhs: ConnectionAuth, rhs: ConnectionAuth) -> Bool {
        switch (lhs, rhs) {
        case (.none, .none): true
        case (.static(let left), .static(let right)): left == right
        case (.provider(let left, _), .provider(let right, _)): left == right
        case (.none, _), (.static, _), (.provider, _): false
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0)
        case .static(let object): hasher.combine(1); hasher.combine(object)
        case .provider(let id, _): hasher.combine(2); hasher.combine(id)
        }
    }
}
