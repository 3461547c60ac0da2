extension PostgresClusterTransport {
    /// How the transport names its channels and attachment table, and its timing; the defaults
    /// are `@socket.io/postgres-adapter`'s, so Node.js servers with default options share the
    /// cluster.
    public struct Options: Sendable, Hashable {
        /// The prefix of each namespace's notification channel, `"<prefix>#<namespace>"`
        /// (`socket.io#/` for the main namespace).
        public var channelPrefix: String
        /// The table of messages too large for a notification, or carrying binary. A plain
        /// identifier, optionally schema-qualified (`schema.table`); it is created when missing.
        public var tableName: String
        /// A message whose JSON takes at least this many UTF-8 bytes goes through the table:
        /// 1 to 8000, since PostgreSQL refuses notifications of 8000 bytes or more (another
        /// value fails ``PostgresClusterTransport/connect(url:options:logger:)`` with
        /// ``PostgresClusterTransportError/invalidOption(_:)``).
        public var payloadThreshold: Int
        /// How often rows older than this are deleted from the table.
        public var cleanupInterval: Duration
        /// The range a reconnection delay is drawn from, uniformly, after the listening
        /// connection is lost (socket.io: 1 to 3 s).
        public var reconnectDelay: ClosedRange<Duration>
        /// Our extension (on by default): every numbered message (`ClusterMessage.sequence`)
        /// is also written to the table, in the statement that notifies, so that a server whose
        /// listening connection was lost (PostgreSQL restarting, a network cut) reads what was
        /// published meanwhile once it listens again, in order, before new notifications; the
        /// numbering drops what it already had. Catch-up reaches back as far as the table keeps
        /// rows (``cleanupInterval``); a longer outage leaves gaps, which the adapter logs.
        /// socket.io's servers ignore the rows and the `seq` member. `false`: socket.io's
        /// behaviour, where notifications sent while a server is not listening are lost to it.
        public var journal: Bool
        /// Our extension (on by default, with ``journal``): the transport keeps sessions for
        /// connection state recovery across servers (`ClusterSessionStore`) in
        /// ``sessionTableName``, and each journal row names its namespace, sending server and
        /// number (three columns added to ``tableName``, which socket.io's servers ignore). It
        /// takes effect only on servers with recovery on; `false`: recovery stays in each
        /// server's memory, as socket.io's.
        public var sessions: Bool
        /// The table of sessions kept for recovery (``sessions``); created when missing.
        public var sessionTableName: String
        /// Whether PostgreSQL answers this transport's statements only once they are on disk.
        /// `false` (the default) sets `synchronous_commit = off` on its connections: a statement
        /// is confirmed, and its notifications sent, before its write-ahead log is flushed, so
        /// with PostgreSQL's default durability a broadcast reaches the other servers about
        /// 0.3 ms sooner (`Benchmarks/README.md`). The price, only if PostgreSQL itself crashes:
        /// the journal rows and session writes of its last moments (at most three times its
        /// `wal_writer_delay`, 0.6 s by default) can be lost, never corrupted — a server whose
        /// listening connection died in that crash can miss those messages, a client that
        /// recovers after it can get a fresh session. Notifications are never lost this way:
        /// they go out at commit either way. `true`: every statement waits for the flush.
        public var synchronousCommit: Bool
        /// How often the listening connection is checked (a `SELECT 1` on it) after it was last
        /// heard from: 5 s by default, as socket.io's adapter heartbeat. A path to PostgreSQL
        /// that goes silent (a partition, a stalled proxy, a hung server) closes nothing, and
        /// without the check this server would stop hearing the others' broadcasts unnoticed.
        public var keepAliveInterval: Duration
        /// How long the listening connection may answer nothing before it is taken for lost:
        /// 10 s by default, as socket.io's adapter heartbeat timeout. It is closed and opened
        /// again (after ``reconnectDelay``), and what was published meanwhile is read back from
        /// the journal. Longer than ``keepAliveInterval``.
        public var keepAliveTimeout: Duration
        /// How long a query (a publish, an attachment fetch, a journal read, a session-store
        /// call) may take: 10 s by default. A later one throws
        /// ``PostgresClusterTransportError/timedOut(_:)`` and its connection is closed, to be
        /// opened again by the next query; the cluster adapter retries a publish that failed so
        /// (for up to its `publishTimeout`, 15 s by default).
        public var queryTimeout: Duration

        /// `@socket.io/postgres-adapter`'s defaults, and the journal.
        public init(
            channelPrefix: String = "socket.io",
            tableName: String = "socket_io_attachments",
            payloadThreshold: Int = 8000,
            cleanupInterval: Duration = .seconds(30),
            reconnectDelay: ClosedRange<Duration> = .seconds(1) ... .seconds(3),
            journal: Bool = true,
            sessions: Bool = true,
            sessionTableName: String = "socket_io_sessions",
            synchronousCommit: Bool = false,
            keepAliveInterval: Duration = .seconds(5),
            keepAliveTimeout: Duration = .seconds(10),
            queryTimeout: Duration = .seconds(10)
        ) {
            self.keepAliveInterval = keepAliveInterval
            self.keepAliveTimeout = keepAliveTimeout
            self.queryTimeout = queryTimeout
            self.synchronousCommit = synchronousCommit
            self.journal = journal
            self.sessions = sessions
            self.sessionTableName = sessionTableName
            self.channelPrefix = channelPrefix
            self.tableName = tableName
            self.payloadThreshold = payloadThreshold
            self.cleanupInterval = cleanupInterval
            self.reconnectDelay = reconnectDelay
        }
    }
}
