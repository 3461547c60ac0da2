import CoreMetrics
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SocketIOServer

/// Receives one namespace's notifications on one connection and hands them over in order.
///
/// A message carried in its notification is delivered on the connection's event loop as it is
/// read: no hop to a task between PostgreSQL and the namespace. One that names an attachment
/// is fetched by a drain task, and what arrives meanwhile waits behind it (``ReceiverQueue``),
/// so a large message never overtakes the small one published before it.
final class NamespaceReceiver: Sendable {
    let namespace: String
    let channel: String
    let table: AttachmentTable
    let queries: QueryConnection
    let deliveries: DeliveryTable
    let logger: Logger
    private let queue = NIOLockedValueBox(ReceiverQueue<String>())
    /// The drain task under way, if any (awaited by ``finished()``).
    private let drain = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let context = NIOLockedValueBox<PostgresListenContext?>(nil)

    init(namespace: String, channel: String, table: AttachmentTable, queries: QueryConnection, deliveries: DeliveryTable, logger: Logger) {
        self.namespace = namespace
        self.channel = channel
        self.table = table
        self.queries = queries
        self.deliveries = deliveries
        self.logger = logger
    }

    /// Listens on `connection` and returns once PostgreSQL confirmed the `LISTEN`; with
    /// `catchUp`, the journal's rows of that last stretch of time are delivered first, then
    /// `caughtUp` is called (not when the read failed or the receiver stopped first).
    ///
    /// - Throws: ``PostgresClusterTransportError/queryFailed(_:)`` when `LISTEN` failed.
    func start(
        on connection: PostgresConnection, catchUp: Duration? = nil, caughtUp: @escaping @Sendable () async -> Void = {}
    ) async throws(PostgresClusterTransportError) {
        if catchUp != nil {
            // Notifications arriving meanwhile queue: the journal's rows are older, so they go first.
            queue.withLockedValue { $0.beginCatchUp() }
        }
        let listening = connection.addListener(channel: channel) { [weak self] _, notification in
            self?.arrived(notification.payload)
        }
        context.withLockedValue { $0 = listening }
        do {
            // Queries run in order on a connection: once this one is answered, the LISTEN that
            // `addListener` queued before it is in force. (A second LISTEN changes nothing; the
            // channel has no quote, ``NotificationFormat/listenableChannel(for:)`` checked.)
            _ = try await connection.query(PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\""), logger: logger).collect()
        } catch {
            stop()
            throw .queryFailed(PostgresConnector.describe(error))
        }
        // Read once the LISTEN is in force: what is published after the read is notified.
        if let catchUp {
            startDrain { if await self.catchUp(catchUp) { await caughtUp() } }
        }
    }

    /// Stops delivering: nothing queued is delivered after this, nor anything that arrives.
    func stop() {
        queue.withLockedValue { $0.stop() }
        context.withLockedValue { $0 }?.stop()
    }

    /// Returns once the drain task (a fetch or a catch-up under way) has ended.
    func finished() async {
        await drain.withLockedValue { $0 }?.value
    }

    /// One notification, on the connection's event loop.
    private func arrived(_ payload: String) {
        let incoming = try? NotificationFormat.incoming(payload)
        var immediate = false
        if case .message = incoming { immediate = true }
        switch queue.withLockedValue({ $0.arrived(payload, immediate: immediate) }) {
        case .deliver:
            if case .message(let message) = incoming { deliver(message, payload: payload) }
        case .startDrain:
            startDrain {}
        case .queued, .dropped:
            break
        }
    }

    /// Starts the task that runs `first`, then delivers what queued, in order, until none is left.
    private func startDrain(_ first: @escaping @Sendable () async -> Void) {
        let task = Task {
            await first()
            while let payload = self.queue.withLockedValue({ $0.next() }) {
                await self.receive(payload)
            }
        }
        drain.withLockedValue { $0 = task }
    }

    /// Delivers the numbered messages of this namespace written to the journal in the last
    /// `interval`, oldest first (socket.io's attachment rows, unnumbered, are left out: they
    /// cannot be told from ones already delivered); `true` once all were delivered.
    func catchUp(_ interval: Duration) async -> Bool {
        do {
            let rows = try await queries.run(table.rows(since: interval))
            var delivered = 0
            for row in rows {
                guard let bytes = try? row.decode(ByteBuffer.self),
                      let message = try? NotificationFormat.message(fromAttachment: bytes.readableBytesView),
                      message.namespace == namespace, message.sequence != nil else { continue }
                guard !queue.withLockedValue(\.stopped) else { return false }
                deliveries.deliver(message, namespace: namespace)
                delivered += 1
            }
            // Re-deliveries of what came before the loss are dropped by the namespace (its
            // duplicates count); what it had missed is recovered.
            Counter(label: "socketio_cluster_journal_delivered_total", dimensions: [("namespace", namespace)]).increment(by: delivered)
            logger.info("caught up with the cluster journal", metadata: ["rows": "\(rows.count)", "delivered": "\(delivered)"])
            return !queue.withLockedValue(\.stopped)
        } catch {
            logger.warning("could not read the cluster journal after reconnecting", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Reads one notification and delivers its message; an unreadable one is logged and skipped.
    func receive(_ payload: String) async {
        do {
            let message: ClusterMessage
            switch try NotificationFormat.incoming(payload) {
            case .message(let inline):
                message = inline
            case .attachment(let id):
                let rows = try await queries.run(table.select(id: id))
                guard let row = rows.first else { throw ClusterMessageError.unreadable("no attachment row \(id)") }
                let bytes = try row.decode(ByteBuffer.self)
                message = try NotificationFormat.message(fromAttachment: bytes.readableBytesView)
            }
            guard !queue.withLockedValue(\.stopped) else { return }
            deliver(message, payload: payload)
        } catch {
            skipped(payload, error)
        }
    }

    private func deliver(_ message: ClusterMessage, payload: String) {
        guard message.namespace == namespace else {
            skipped(payload, ClusterMessageError.unreadable("a message for \(message.namespace) on \(channel)"))
            return
        }
        deliveries.deliver(message, namespace: namespace)
    }

    private func skipped(_ payload: String, _ error: any Error) {
        logger.warning("skipped an unreadable cluster notification", metadata: ["error": "\(error)", "payload": "\(payload.prefix(200))"])
    }
}
