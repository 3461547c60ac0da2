import Logging

/// Deletes the attachment table's rows, and the sessions, past their retention, every cleanup
/// interval (``PostgresClusterTransport/Options/cleanupInterval``), for as long as the
/// transport lives.
enum TableCleanup {
    /// Starts the cleanup; `retention` reads the transport's current retention, `nil` once the
    /// transport is gone (which ends the task, as cancelling it does).
    static func start(
        every interval: Duration,
        table: AttachmentTable,
        sessionTable: SessionTable?,
        queries: QueryConnection,
        logger: Logger,
        retention: @escaping @Sendable () async -> Duration?
    ) -> Task<Void, Never> {
        Task {
            while true {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let retention = await retention() else { return }
                do {
                    _ = try await table.deleteOlder(than: retention, on: queries)
                    if let sessionTable { _ = try await queries.run(sessionTable.deleteExpired(retention: retention)) }
                } catch {
                    logger.warning("could not delete old cluster attachments", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
