import CoreMetrics
import Logging
import PostgresNIO
import SocketIOServer

/// Receives one namespace's notifications on one connection and hands them over in order:
/// one task reads them one at a time, fetching an attachment before reading the next, so a
/// large message never overtakes the small one published before it.
struct NamespaceReceiver: Sendable {
    let namespace: String
    let channel: String
    let table: AttachmentTable
    let queries: QueryConnection
    let deliveries: DeliveryTable
    let logger: Logger

    /// Sends `LISTEN` on `connection` and returns once PostgreSQL confirmed it, with the task
    /// that hands notifications over until the connection ends or the task is cancelled.
    ///
    /// - Throws: ``PostgresClusterTransportError/queryFailed(_:)`` when `LISTEN` failed,
    ///   ``PostgresClusterTransportError/closed`` when the calling task was cancelled.
    func start(on connection: PostgresConnection, catchUp: Duration? = nil) async throws(PostgresClusterTransportError) -> Task<Void, Never> {
        let (ready, signal) = AsyncStream.makeStream(of: Result<Void, PostgresClusterTransportError>.self)
        let task = Task {
            do {
                try await connection.listen(on: channel) { notifications in
                    signal.yield(.success(()))
                    // Notifications arriving meanwhile wait in the sequence: the journal's rows
                    // are older, so they go first.
                    if let catchUp { await self.catchUp(catchUp) }
                    for try await notification in notifications {
                        await receive(notification.payload)
                    }
                }
            } catch {
                // The connection's loss is the transport's to report; this only ends the task.
                signal.yield(.failure(.queryFailed(PostgresConnector.describe(error))))
                logger.debug("stopped listening", metadata: ["error": "\(PostgresConnector.describe(error))"])
            }
            signal.finish()
        }
        var iterator = ready.makeAsyncIterator()
        guard let result = await iterator.next() else {
            task.cancel()
            throw .closed
        }
        do {
            try result.get()
        } catch {
            task.cancel()
            throw error
        }
        return task
    }

    /// Delivers the numbered messages of this namespace written to the journal in the last
    /// `interval`, oldest first (socket.io's attachment rows, unnumbered, are left out: they
    /// cannot be told from ones already delivered).
    func catchUp(_ interval: Duration) async {
        do {
            let rows = try await queries.run(table.rows(since: interval))
            var delivered = 0
            for row in rows {
                guard let bytes = try? row.decode(ByteBuffer.self),
                      let message = try? NotificationFormat.message(fromAttachment: bytes.readableBytesView),
                      message.namespace == namespace, message.sequence != nil else { continue }
                deliveries.deliver(message, namespace: namespace)
                delivered += 1
            }
            // Re-deliveries of what came before the loss are dropped by the namespace (its
            // duplicates count); what it had missed is recovered.
            Counter(label: "socketio_cluster_journal_delivered_total", dimensions: [("namespace", namespace)]).increment(by: delivered)
            logger.info("caught up with the cluster journal", metadata: ["rows": "\(rows.count)", "delivered": "\(delivered)"])
        } catch {
            logger.warning("could not read the cluster journal after reconnecting", metadata: ["error": "\(error)"])
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
            guard message.namespace == namespace else {
                throw ClusterMessageError.unreadable("a message for \(message.namespace) on \(channel)")
            }
            deliveries.deliver(message, namespace: namespace)
        } catch {
            logger.warning(
                "skipped an unreadable cluster notification",
                metadata: ["error": "\(error)", "payload": "\(payload.prefix(200))"]
            )
        }
    }
}
