import NIOCore
import PostgresNIO
import SocketIOProtocol
import SocketIOServer

/// What ``PostgresClusterTransport`` publishes, as statements: each run of small messages on
/// one channel in one notifying statement (with their journal rows), a large or binary one
/// through the attachment table.
struct ClusterPublisher: Sendable {
    let format: NotificationFormat
    let table: AttachmentTable
    /// The sessions table, when sessions are on: journal rows then name their namespace,
    /// origin and number.
    let sessionTable: SessionTable?
    let queries: QueryConnection
    /// Whether numbered messages are journaled (``PostgresClusterTransport/Options/journal``).
    let journal: Bool

    /// Publishes `messages` in order; some may have gone out before a failure.
    func publish(_ messages: [ClusterMessage]) async throws(PostgresClusterTransportError) {
        var run = NotifyRun()
        for message in messages {
            let channel = try format.listenableChannel(for: message.namespace)
            switch format.outgoing(message) {
            case .notify(let payload):
                let journaled = journal && message.sequence != nil
                let record = journaled ? ByteBuffer(bytes: MessagePackValue(json: message.json).encoded) : nil
                if !run.accepts(channel: channel, journaled: journaled) { try await flush(&run) }
                run.append(channel: channel, payload: payload, record: record, message: message)
            case .attachment(let bytes):
                try await flush(&run)
                let rows = try await queries.run(sessionTable?.insert(bytes, journaling: message) ?? table.insert(bytes))
                guard let id = try? rows.first?.decode(Int64.self) else {
                    throw .queryFailed("the attachment INSERT returned no id")
                }
                let header = NotificationFormat.header(for: message, attachmentID: String(id))
                _ = try await queries.run("SELECT pg_notify(\(channel), \(header))")
            }
        }
        try await flush(&run)
    }

    private func flush(_ run: inout NotifyRun) async throws(PostgresClusterTransportError) {
        guard let channel = run.channel, !run.payloads.isEmpty else { return }
        let query = if run.journaled, sessionTable != nil, let namespace = run.namespace {
            AttachmentTable.notify(
                channel: channel, payloads: run.payloads, records: run.records, namespace: namespace,
                origins: run.origins, sequences: run.sequences, table: table
            )
        } else {
            AttachmentTable.notify(channel: channel, payloads: run.payloads, journaling: run.journaled ? run.records : nil, table: table)
        }
        run = NotifyRun()
        _ = try await queries.runPrepared(query)
    }
}

/// Consecutive small messages for one channel, journaled alike: one statement.
struct NotifyRun {
    private(set) var channel: String?
    private(set) var journaled = false
    private(set) var payloads: [String] = []
    private(set) var records: [ByteBuffer] = []
    /// The namespace, and each journaled message's origin tag and number.
    private(set) var namespace: String?
    private(set) var origins: [String] = []
    private(set) var sequences: [Int64] = []

    func accepts(channel: String, journaled: Bool) -> Bool {
        payloads.isEmpty || (self.channel == channel && self.journaled == journaled)
    }

    mutating func append(channel: String, payload: String, record: ByteBuffer?, message: ClusterMessage) {
        self.channel = channel
        namespace = message.namespace
        journaled = record != nil
        payloads.append(payload)
        if let record {
            records.append(record)
            origins.append(message.originTag)
            sequences.append(Int64(clamping: message.sequence ?? 0))
        }
    }
}
