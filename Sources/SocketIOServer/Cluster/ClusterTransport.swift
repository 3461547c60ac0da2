/// How the servers of a cluster reach each other: a publish/subscribe channel per namespace
/// carrying ``ClusterMessage``s.
///
/// The cluster adapter (``SocketIOServer/Configuration/adapter``) speaks socket.io's cluster
/// protocol over it: heartbeats, broadcasts, rooms, requests and their answers. A transport only
/// moves messages: `SocketIOPostgres`'s `PostgresClusterTransport` over PostgreSQL's
/// `LISTEN`/`NOTIFY` (wire-compatible with `@socket.io/postgres-adapter`), ``LocalClusterBus``
/// between servers in one process.
public protocol ClusterTransport: Sendable {
    /// Starts handing every message published for `namespace` to `deliver`, in the order they
    /// were published, this server's own included (the adapter skips those). Called once per
    /// namespace; a transport that loses its connection subscribes again by itself.
    ///
    /// `deliver` applies the message before it returns (it sends a broadcast to this server's
    /// sockets): call it outside the transport's locks, one message at a time per sender.
    ///
    /// A notification that is not a cluster message is logged and skipped by the transport.
    func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws

    /// Sends `message` to every server subscribed to its namespace.
    ///
    /// - Throws: when the message could not be handed over (the adapter retries it, in order,
    ///   until ``ClusterOptions/publishTimeout``).
    func publish(_ message: ClusterMessage) async throws

    /// Sends `messages`, in order, to every server subscribed to their namespaces — in one
    /// round trip where the transport can. The adapter hands over what queued up while the
    /// previous publish was under way. When it throws, the adapter publishes the whole batch
    /// again: receivers drop the copies of what did go out by their numbers
    /// (``ClusterMessage/sequence``).
    func publish(_ messages: [ClusterMessage]) async throws

    /// Stops receiving and releases the transport's connections.
    func shutdown() async

    /// The executor the adapter's publishing task prefers: the event loop of the transport's
    /// connections, so a publish is written without a hop to another thread. `nil` (the
    /// default): the concurrency pool.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension ClusterTransport {
    /// The concurrency pool.
    public var taskExecutor: (any TaskExecutor)? { nil }

    /// One message after the other.
    public func publish(_ messages: [ClusterMessage]) async throws {
        for message in messages { try await publish(message) }
    }
}

/// Timing of the cluster protocol; the defaults are socket.io's.
public struct ClusterOptions: Sendable, Hashable {
    /// A server that published nothing for this long sends a heartbeat (socket.io: 5 s).
    public var heartbeatInterval: Duration
    /// A server not heard from for this long is forgotten (socket.io: 10 s).
    public var heartbeatTimeout: Duration
    /// How long `fetchSockets` and `serverSideEmitWithAck` wait for every server (socket.io: 5 s);
    /// also how long a call to the session store (``ClusterSessionStore``) may take while a
    /// recovering client waits for it, and how long a stopping server waits for its last
    /// session changes to be written.
    public var requestTimeout: Duration
    /// How long a message that could not be published is retried, in order, before its caller
    /// is told (``ClusterError/publishFailed(_:)``) — long enough for a database restart; also
    /// how long a server joining the cluster with recovery on waits for the journal's read.
    public var publishTimeout: Duration

    /// socket.io's timing, and 15 s of retries.
    public init(
        heartbeatInterval: Duration = .seconds(5),
        heartbeatTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(5),
        publishTimeout: Duration = .seconds(15)
    ) {
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatTimeout = heartbeatTimeout
        self.requestTimeout = requestTimeout
        self.publishTimeout = publishTimeout
    }
}

/// What a cluster operation can throw.
public enum ClusterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message could not be published within ``ClusterOptions/publishTimeout``, or at all
    /// (the namespace's adapter could not start: its subscription failed); the other servers
    /// did not get it.
    case publishFailed(String)
    /// Not every server answered in time: `missing` servers were still silent.
    case timedOut(missing: Int)
    /// The server is stopping.
    case closed

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .publishFailed(let why): "cluster message not published: \(why)"
        case .timedOut(let missing): "timeout reached: missing \(missing) responses"
        case .closed: "the cluster adapter is closed"
        }
    }
}

/// Which adapter a server's namespaces use.
public enum ServerAdapter: Sendable {
    /// Broadcasts and rooms reach this process's sockets only (socket.io's in-memory adapter).
    case inProcess
    /// Broadcasts, rooms, socket queries and server-side events reach every server on the
    /// transport, with socket.io's cluster protocol.
    case cluster(any ClusterTransport, ClusterOptions = ClusterOptions())
}
