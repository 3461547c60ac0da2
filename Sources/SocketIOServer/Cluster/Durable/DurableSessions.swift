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

    /// How long a recovering client waits for this server to have delivered what its offset
    /// names (the other servers' messages still on their way here).
    static let catchUpLimit: Duration = .seconds(5)

    init(store: any ClusterSessionStore, recovery: ConnectionStateRecovery, logger: Logger) {
        self.store = store
        self.recovery = recovery
        self.keeper = SessionKeeper(store: store, logger: logger)
    }

    /// Prepares the store and starts writing as server `owner`.
    func start(owner: String, clock: Timeline) async throws {
        try await store.prepareSessions(retention: recovery.maxDisconnectionDuration)
        let keeper = self.keeper
        let task = Task { await keeper.run(owner: owner, clock: clock) }
        writer.withLockedValue { $0 = task }
    }

    /// Writes what is queued, then stops.
    func stop() async {
        keeper.close()
        let task = writer.withLockedValue { $0 }
        await task?.value
    }

    /// `session` is connected here as it is now.
    func connected(_ socket: ServerSocket, rooms: Set<String>) {
        guard let pid = socket.pid else { return }
        keeper.record(.connected(ClusterSession(
            pid: pid, id: socket.id, namespace: socket.namespace.name, rooms: rooms.sorted(), data: socket.data
        )))
    }

    /// Whether an event sent with `options` reaches a session in `rooms`.
    static func selects(_ options: ClusterBroadcastOptions, rooms: Set<String>) -> Bool {
        (options.rooms.isEmpty || options.rooms.contains(where: rooms.contains)) && !options.except.contains(where: rooms.contains)
    }
}
