public import Logging
import PostgresNIO
import SocketIOProtocol
public import SocketIOServer
import SwitchboardCore

/// A `ClusterTransport` over PostgreSQL's `LISTEN`/`NOTIFY`, wire-compatible
/// with `@socket.io/postgres-adapter` 0.5: Swift and Node.js servers on one database share
/// rooms and broadcasts.
///
/// Each namespace has a channel, `socket.io#/chat`; a message is a `NOTIFY` with its JSON, or,
/// when it is 8000 bytes or more or carries binary, a row of the attachment table (created when
/// missing, old rows deleted every 30 s) named in the notification.
///
/// One connection listens; when it is lost, or answers nothing for 10 s, the transport connects
/// again after 1–3 s and listens on every namespace again. A second connection publishes;
/// publishing while the database is unreachable, or a query that takes over 10 s, throws, and
/// the cluster adapter retries.
///
/// ```swift
/// let transport = try await PostgresClusterTransport.connect(
///     url: "postgres://postgres@127.0.0.1:5432/postgres",
///     logger: logger
/// )
/// var configuration = Configuration()
/// configuration.adapter = .cluster(transport)
/// // …serve; when the server has stopped:
/// await transport.shutdown()
/// ```
public actor PostgresClusterTransport: ClusterTransport {
    let options: Options
    let format: NotificationFormat
    let table: AttachmentTable
    /// The sessions table and the journal's recovery columns, when ``Options/sessions`` is on.
    let sessionTable: SessionTable?
    /// How long journal rows and sessions are kept: the cleanup interval, or the longest
    /// recovery window a server asked for.
    var retention: Duration
    /// The longest recovery window a server asked for (``prepareSessions(retention:)``): the
    /// journal is read within it.
    var recoveryWindow: Duration?
    let connector: PostgresConnector
    /// The event loop of the transport's connections, as an executor (``taskExecutor``).
    private nonisolated let loopExecutor: EventLoopTaskExecutor
    let queries: QueryConnection
    /// Writes what is published: the notifying statements and attachment rows.
    private let publisher: ClusterPublisher
    let deliveries = DeliveryTable()
    let logger: Logger
    var listener: ListenerStateMachine<PostgresConnection>
    /// The receiver of each namespace's notifications on the current connection.
    var receivers: [String: NamespaceReceiver] = [:]
    var reconnection: Task<Void, Never>?
    /// The liveness checks of the current listening connection (``ListenerWatchdog``).
    var watchdog: Task<Void, Never>?
    private var cleanup: Task<Void, Never>?
    /// The listening connection's losses and recoveries (the newest 100 kept for a slow reader).
    nonisolated let events: AsyncStream<ListenerEvent>
    let eventSink: AsyncStream<ListenerEvent>.Continuation

    /// Connects to PostgreSQL, creates the attachment table if it is missing, and starts
    /// listening (no namespace yet: the cluster adapter subscribes them).
    ///
    /// - Parameters:
    ///   - url: `postgres://user[:password]@host[:port]/database` (no TLS: `sslmode`, if given,
    ///     must be `disable`, `allow` or `prefer`).
    ///   - options: channel prefix, table, threshold and timing; socket.io's by default.
    ///   - logger: where connection losses and skipped notifications are reported.
    /// - Throws: ``PostgresClusterTransportError/invalidURL(_:)`` or
    ///   ``PostgresClusterTransportError/invalidOption(_:)`` before connecting;
    ///   ``PostgresClusterTransportError/unreachable(_:)`` when PostgreSQL cannot be reached or
    ///   refuses the login; ``PostgresClusterTransportError/queryFailed(_:)`` when the table
    ///   cannot be created.
    public static func connect(
        url: String,
        options: Options = Options(),
        logger: Logger
    ) async throws(PostgresClusterTransportError) -> PostgresClusterTransport {
        let parsed = try PostgresURL(parsing: url)
        let table = try AttachmentTable(name: options.tableName)
        let sessionTable = options.sessions && options.journal ? try SessionTable(name: options.sessionTableName, journal: table) : nil
        guard (1 ... 8000).contains(options.payloadThreshold) else { throw .invalidOption("payloadThreshold must be in 1...8000") }
        guard options.cleanupInterval > .zero else { throw .invalidOption("cleanupInterval must be positive") }
        guard options.reconnectDelay.lowerBound >= .zero else { throw .invalidOption("reconnectDelay must not be negative") }
        guard options.keepAliveInterval > .zero, options.keepAliveTimeout > options.keepAliveInterval else {
            throw .invalidOption("keepAliveInterval must be positive, and keepAliveTimeout longer")
        }
        guard options.queryTimeout > .zero else { throw .invalidOption("queryTimeout must be positive") }

        let connector = PostgresConnector(url: parsed, synchronousCommit: options.synchronousCommit, logger: logger)
        let queries = QueryConnection(connector: connector, timeout: options.queryTimeout)
        let listening: PostgresConnection
        do {
            for statement in [table.create, table.createdIndex] + (sessionTable?.prepare ?? []) { try await queries.runRetryingRaces(statement) }
            listening = try await connector.connect()
        } catch {
            await queries.close()
            throw error
        }
        let transport = PostgresClusterTransport(
            options: options, table: table, sessionTable: sessionTable, connector: connector, queries: queries,
            listening: listening, logger: logger
        )
        await transport.start(listening: listening)
        return transport
    }

    private init(
        options: Options,
        table: AttachmentTable,
        sessionTable: SessionTable?,
        connector: PostgresConnector,
        queries: QueryConnection,
        listening: PostgresConnection,
        logger: Logger
    ) {
        self.options = options
        self.format = NotificationFormat(channelPrefix: options.channelPrefix, payloadThreshold: options.payloadThreshold)
        self.table = table
        self.sessionTable = sessionTable
        self.retention = options.cleanupInterval
        self.connector = connector
        self.loopExecutor = EventLoopTaskExecutor(connector.eventLoop)
        self.queries = queries
        self.publisher = ClusterPublisher(format: format, table: table, sessionTable: sessionTable, queries: queries, journal: options.journal)
        self.listener = ListenerStateMachine(connection: listening)
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream(of: ListenerEvent.self, bufferingPolicy: .bufferingNewest(100))
    }

    private func start(listening: PostgresConnection) {
        watch(listening, generation: 0)
        cleanup = TableCleanup.start(every: options.cleanupInterval, table: table, sessionTable: sessionTable, queries: queries, logger: logger) { [weak self] in
            await self?.retention
        }
    }

    /// Starts handing `namespace`'s messages to `deliver`, once PostgreSQL confirmed the
    /// `LISTEN`. A second call for a namespace replaces its `deliver`.
    ///
    /// - Throws: ``PostgresClusterTransportError/unsupportedNamespace(_:)`` when the channel
    ///   name is over 63 bytes or holds `"`; ``PostgresClusterTransportError/queryFailed(_:)``
    ///   when `LISTEN` failed (a later call tries again; when the connection was lost, the next
    ///   one listens on the namespace);
    ///   ``PostgresClusterTransportError/closed`` after ``shutdown()``.
    public func subscribe(
        namespace: String,
        deliver: @escaping @Sendable (ClusterMessage) -> Void
    ) async throws(PostgresClusterTransportError) {
        _ = try format.listenableChannel(for: namespace)
        deliveries.set(deliver, for: namespace)
        switch listener.subscribe(namespace) {
        case .closed: throw .closed
        case .alreadySubscribed, .waitForConnection: return
        case .listen(let connection, let generation):
            do throws(PostgresClusterTransportError) { try await listen(namespace, on: connection) } catch {
                listener.listenFailed(namespace, generation: generation)
                throw error
            }
        }
    }

    /// Publishes `message` on its namespace's channel, through the attachment table when it is
    /// large or carries binary.
    ///
    /// - Throws: ``PostgresClusterTransportError/unreachable(_:)`` or
    ///   ``PostgresClusterTransportError/queryFailed(_:)`` when the database cannot take it
    ///   now, ``PostgresClusterTransportError/unsupportedNamespace(_:)``,
    ///   ``PostgresClusterTransportError/closed`` after ``shutdown()``.
    public func publish(_ message: ClusterMessage) async throws(PostgresClusterTransportError) {
        try await publish([message])
    }

    /// Publishes `messages` in order: each run of small messages on one channel in one
    /// statement (with their journal rows), a large or binary one through the attachment table.
    ///
    /// - Throws: as ``publish(_:)-(ClusterMessage)``; some messages may have gone out before the
    ///   failure (their numbers let receivers drop them when the batch is published again).
    public func publish(_ messages: [ClusterMessage]) async throws(PostgresClusterTransportError) {
        guard !listener.isClosed else { throw .closed }
        try await publisher.publish(messages)
    }

    /// The event loop both connections run on: the adapter publishes from it, so a publish is
    /// written to PostgreSQL without a hop to another thread.
    public nonisolated var taskExecutor: (any TaskExecutor)? { loopExecutor }

    /// Stops listening and publishing and closes both connections; no message is delivered
    /// after it returns. Later calls throw ``PostgresClusterTransportError/closed``.
    public func shutdown() async {
        let connection = listener.shutdown()
        reconnection?.cancel()
        watchdog?.cancel()
        cleanup?.cancel()
        let receiving = Array(receivers.values)
        receivers = [:]
        for receiver in receiving { receiver.stop() }
        // Its close completes on its event loop, after any delivery under way there.
        try? await connection?.close()
        // Closed before waiting: a receiver fetching an attachment or catching up from a
        // database that stopped answering would otherwise hold the shutdown.
        await queries.close()
        for receiver in receiving { await receiver.finished() }
        eventSink.finish()
    }
}
