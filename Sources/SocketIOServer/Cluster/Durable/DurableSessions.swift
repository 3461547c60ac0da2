import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

/// A namespace's sessions kept in the cluster's store (``ClusterSessionStore``): the order
/// numbered events are delivered in, and the writer of its session changes.
final class DurableSessions: Sendable {
    let store: any ClusterSessionStore
    let recovery: ConnectionStateRecovery
    let order = DeliveryOrder()
    let keeper: SessionKeeper
    private let writer = NIOLockedValueBox<Task<Void, Never>?>(nil)
    /// Forgets the origins gone quiet, once per recovery window (``DeliveryOrder/Cursor/forgetQuietOrigins()``).
    private let forgetter = NIOLockedValueBox<Task<Void, Never>?>(nil)

    let clock: Timeline
    private let logger: Logger

    /// How long a recovering client waits for this server to have delivered what its offset
    /// names (the other servers' messages still on their way here).
    static let catchUpLimit: Duration = .seconds(5)
    /// How long one call to the store may take while a client waits for it (taking a session,
    /// reading the journal), and how long ``stop()`` waits for the last changes to be written
    /// (``ClusterOptions/requestTimeout``). A store that stops answering (a database that
    /// accepts connections but not queries) then costs a recovering client a fresh session, and
    /// a stopping server its last writes, not a hang: a query on a connection that hangs need
    /// not notice cancellation.
    let storeLimit: Duration
    /// How long ``start(owner:namespace:)`` waits for the journal: as long as a publish is
    /// retried (``ClusterOptions/publishTimeout``), at least ``storeLimit``. No client waits
    /// for it, and a server that gave up would not join the cluster.
    let startLimit: Duration

    init(
        store: any ClusterSessionStore, recovery: ConnectionStateRecovery, storeLimit: Duration, startLimit: Duration, clock: Timeline,
        logger: Logger
    ) {
        self.store = store
        self.recovery = recovery
        self.storeLimit = storeLimit
        self.startLimit = max(startLimit, storeLimit)
        self.clock = clock
        self.logger = logger
        self.keeper = SessionKeeper(store: store, logger: logger)
    }

    /// Prepares the store, starts the delivery order where the journal of `namespace` stands
    /// (this server listens already: what is numbered after it comes live), and starts writing
    /// as server `owner`. Without that start, a client recovering here with an offset naming a
    /// server gone silent since would wait ``catchUpLimit`` for messages that never come here,
    /// and miss those of them it had not had.
    func start(owner: String, namespace: String) async throws {
        try await store.prepareSessions(retention: recovery.maxDisconnectionDuration)
        let store = self.store
        let horizon = try await bounded("reading the journal", within: startLimit, { try await store.lastJournaled(namespace: namespace) })
        order.inOrder { $0.start(from: horizon) }
        let keeper = self.keeper
        let clock = self.clock
        let task = Task { await keeper.run(owner: owner, clock: clock) }
        writer.withLockedValue { $0 = task }
        let (order, window, logger) = (self.order, recovery.maxDisconnectionDuration, self.logger)
        guard window > .zero else { return }
        let forgetting = Task {
            while (try? await clock.sleep(window)) != nil {
                let forgotten = order.inOrder { $0.forgetQuietOrigins() }
                if !forgotten.isEmpty { logger.debug("recovery offsets no longer name servers gone quiet", metadata: ["origins": "\(forgotten)"]) }
            }
        }
        forgetter.withLockedValue { $0 = forgetting }
    }

    /// Writes what is queued, then stops; gives up after ``storeLimit``.
    func stop() async {
        forgetter.withLockedValue { $0 }?.cancel()
        keeper.close()
        guard let task = writer.withLockedValue({ $0 }) else { return }
        do {
            try await clock.withDeadline(storeLimit, onDeadline: { ClusterStoreTimeout(operation: "writing the last session changes") }) {
                await task.value
            }
        } catch {
            task.cancel()
            logger.warning("stopped without writing the last session changes to the cluster", metadata: ["error": "\(error)"])
        }
    }

    /// `body`, a call to the store, bounded by `limit` (``storeLimit`` unless given): past it
    /// this throws ``ClusterStoreTimeout`` whether or not the call noticed.
    func bounded<T: Sendable>(_ operation: String, within limit: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await clock.withDeadline(limit ?? storeLimit, onDeadline: { ClusterStoreTimeout(operation: operation) }, body)
    }

    /// `socket` is connected here, in `rooms` since `roomsOffset`.
    func connected(_ socket: ServerSocket, rooms: Set<String>, roomsOffset: String?) {
        guard let pid = socket.pid else { return }
        keeper.record(.connected(ClusterSession(
            pid: pid, id: socket.id, namespace: socket.namespace.name, rooms: rooms.sorted(), data: socket.data, roomsOffset: roomsOffset
        )))
    }

    /// Whether an event sent with `options` reaches a session in `rooms`.
    static func selects(_ options: ClusterBroadcastOptions, rooms: Set<String>) -> Bool {
        (options.rooms.isEmpty || options.rooms.contains(where: rooms.contains)) && !options.except.contains(where: rooms.contains)
    }
}

/// The cluster's session store did not answer within ``DurableSessions/storeLimit``.
struct ClusterStoreTimeout: Error, CustomStringConvertible {
    let operation: String

    var description: String { "the cluster's session store did not answer in time (\(operation))" }
}
