import NIOConcurrencyHelpers
public import SocketIOProtocol

/// A Socket.IO namespace on the server: its auth hooks, its connection handlers, its sockets
/// and their rooms.
///
/// ```swift
/// let chat = server.namespace("/chat")
/// chat.use { handshake in
///     guard handshake.auth?["token"] == "secret" else { throw ConnectionRefused(message: "unauthorized") }
/// }
/// chat.onConnection { socket in
///     socket.join("lobby")
///     socket.on("say") { event in socket.to("lobby").emit("said", items: event.items) }
/// }
/// chat.emit("announcement", "server restarting soon")
/// ```
///
/// Every method is safe from any thread. Broadcasts resolve their recipients under the
/// namespace's lock, then encode once and write to each recipient's own queue after releasing it.
public final class Namespace: Sendable {
    /// An auth hook: throw ``ConnectionRefused`` (or any error) to refuse the connection.
    public typealias Middleware = @Sendable (SocketHandshake) async throws -> Void
    /// Called for every socket that joins, after the CONNECT reply and before its first event.
    public typealias ConnectionHandler = @Sendable (ServerSocket) async -> Void

    /// The namespace's name, e.g. `/` or `/chat`.
    public let name: String
    let environment: ServerEnvironment
    /// Who is in the namespace (see ``membership(_:)``).
    private let state = NIOLockedValueBox(NamespaceMembership())
    /// What the app registered.
    let handlers = NamespaceHandlers()
    private let offsetCounter = NIOLockedValueBox<UInt64>(0)
    let expiries: TimerSlots<String>
    /// socket.io's cluster adapter for this namespace, when the server is in a cluster.
    let cluster: NamespaceCluster?
    /// This namespace's metrics.
    let metrics: NamespaceMetrics
    /// Its sessions kept in the cluster's store: recovery on, and a cluster transport that
    /// keeps sessions (``ClusterSessionStore``).
    let durable: DurableSessions?

    init(name: String, environment: ServerEnvironment) {
        self.name = name
        self.environment = environment
        self.metrics = environment.metrics.namespace(name)
        self.expiries = TimerSlots(clock: environment.clock)
        switch environment.configuration.adapter {
        case .inProcess:
            cluster = nil
            durable = nil
        case .cluster(let transport, let options):
            cluster = NamespaceCluster(
                name: name, transport: transport, options: options, clock: environment.clock, logger: environment.logger,
                metrics: metrics
            )
            if let recovery = environment.configuration.recovery, let store = transport as? any ClusterSessionStore, store.keepsSessions {
                durable = DurableSessions(
                    store: store, recovery: recovery, storeLimit: options.requestTimeout, startLimit: options.publishTimeout,
                    clock: environment.clock, logger: environment.logger
                )
            } else {
                durable = nil
            }
        }
    }

    /// Joins the cluster (and starts keeping sessions in it), when the server is in one.
    func startCluster() async throws {
        guard let cluster else { return }
        try await cluster.start(receiver: self)
        try await durable?.start(owner: cluster.uid, namespace: name)
    }

    /// Writes the sessions' last changes, then leaves the cluster.
    func stopCluster() async {
        await durable?.stop()
        await cluster?.shutdown()
    }

    // MARK: - Setup

    /// Adds an auth hook. Hooks run in order for every connection (not for recovered ones, as
    /// in socket.io); the first that throws refuses it with `44/<nsp>,{"message":…,"data":…}`.
    public func use(_ middleware: @escaping Middleware) {
        handlers.add(middleware: middleware)
    }

    /// Adds a handler for every socket that joins the namespace. Register the socket's event
    /// handlers here: the socket receives no event before every connection handler returned.
    public func onConnection(_ handler: @escaping ConnectionHandler) {
        handlers.add(connection: handler)
    }

    // MARK: - Sockets

    /// The connected sockets.
    public var sockets: [ServerSocket] {
        membership { $0.sockets }
    }

    /// The connected socket with this id.
    public func socket(id: String) -> ServerSocket? {
        membership { $0.members[id]?.socket }
    }

    /// The rooms that have at least one member (every socket is in the room named by its id).
    public var rooms: Set<String> {
        membership { Set($0.rooms.keys) }
    }

    // MARK: - Broadcasting

    /// Every socket of the namespace, to narrow with `to`/`except`.
    public var all: BroadcastOperator { BroadcastOperator(namespace: self) }

    /// The sockets in `room`.
    public func to(_ room: String) -> BroadcastOperator { all.to(room) }

    /// The sockets in any of `rooms`.
    public func to(_ rooms: some Sequence<String>) -> BroadcastOperator { all.to(rooms) }

    /// Every socket not in `room`.
    public func except(_ room: String) -> BroadcastOperator { all.except(room) }

    /// Broadcasts without storing for recovery; dropped for sockets that are not connected.
    public var volatile: BroadcastOperator { all.volatile }

    /// Sends an event to every socket of the namespace.
    public func emit(_ event: String, _ items: JSONValue...) {
        all.emit(event, items: items)
    }

    /// Sends an event to every socket of the namespace.
    public func emit(_ event: String, items: [JSONValue]) {
        all.emit(event, items: items)
    }

    /// Disconnects every socket of the namespace, on every server (`close: true` also closes
    /// their connections).
    public func disconnectSockets(close: Bool = false) {
        all.disconnectSockets(close: close)
    }

    /// Every socket of the namespace on this server only (socket.io's `local` flag).
    public var local: BroadcastOperator { all.local }

    /// Describes every socket of the namespace, on every server of the cluster.
    public func fetchSockets(timeout: Duration? = nil) async throws(ClusterError) -> [RemoteSocket] {
        try await all.fetchSockets(timeout: timeout)
    }

    // MARK: - For connections

    /// One change or read of the membership under the namespace's lock; what it hands back
    /// (an outbox to close, an expiry to arm) is done after.
    func membership<T>(_ body: (inout NamespaceMembership) -> T) -> T {
        state.withLockedValue { body(&$0) }
    }

    /// Runs the auth hooks in order.
    func authorize(_ handshake: SocketHandshake) async throws {
        for middleware in handlers.middlewares {
            try await middleware(handshake)
        }
    }

    func runConnectionHandlers(_ socket: ServerSocket) async {
        for handler in handlers.connection {
            await handler(socket)
        }
    }

    /// A fresh offset for an event stored for recovery (unique and increasing in this namespace;
    /// with sessions kept in the cluster, the frontier and a counter).
    func nextOffset() -> String {
        if let durable { return durable.order.unnumberedOffset() }
        let value = offsetCounter.withLockedValue { counter in
            counter += 1
            return counter
        }
        return String(value, radix: 36)
    }

    /// Encodes an event once (with an offset when it is stored for recovery).
    func encodeEvent(_ event: String, items: [JSONValue], storable: Bool) -> (frames: [EngineFrame], offset: String?) {
        guard storable, environment.configuration.recovery != nil else {
            return (encodeEvent(event, items: items, offset: nil), nil)
        }
        let offset = nextOffset()
        return (encodeEvent(event, items: items, offset: offset), offset)
    }

    /// Encodes an event with `offset` (if any) as its last argument.
    func encodeEvent(_ event: String, items: [JSONValue], offset: String?) -> [EngineFrame] {
        guard let offset else { return EngineFrame.frames(of: .event(event, items, namespace: name)) }
        return EngineFrame.frames(of: .event(event, items + [.string(offset)], namespace: name))
    }
}
