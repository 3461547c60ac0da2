import Foundation
import NIOCore
import PostgresNIO
import SwitchboardCore

/// The SQL of the attachment table, as `@socket.io/postgres-adapter` names and uses it: the
/// table name goes into the statements as written (unquoted, so `MyTable` is `mytable`, as in
/// Node.js), which is why only plain identifiers are accepted.
struct AttachmentTable: Sendable, Hashable {
    let name: String

    /// - Throws: ``PostgresClusterTransportError/invalidOption(_:)`` unless `name` is an
    ///   identifier (letters, digits, `_`, `$`, not starting with a digit or `$`), optionally
    ///   schema-qualified.
    init(name: String) throws(PostgresClusterTransportError) {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard (1 ... 2).contains(parts.count), parts.allSatisfy(Self.isIdentifier) else {
            throw .invalidOption("table name \"\(name)\" is not a plain SQL identifier")
        }
        self.name = name
    }

    var create: PostgresQuery {
        """
        CREATE TABLE IF NOT EXISTS \(unescaped: name) (
            id          bigserial UNIQUE,
            created_at  timestamptz DEFAULT NOW(),
            payload     bytea
        );
        """
    }

    func insert(_ payload: Data) -> PostgresQuery {
        "INSERT INTO \(unescaped: name) (payload) VALUES (\(ByteBuffer(bytes: payload))) RETURNING id;"
    }

    /// As ``insert(_:)`` for a numbered message when sessions are kept: the row is its journal
    /// row too, so it names its namespace, origin tag and number, as
    /// ``notify(channel:payloads:records:namespace:origins:sequences:table:)`` writes them.
    func insert(_ payload: Data, namespace: String, origin: String, sequence: Int64) -> PostgresQuery {
        """
        INSERT INTO \(unescaped: name) (payload, nsp, origin, seq)
        VALUES (\(ByteBuffer(bytes: payload)), \(namespace), \(origin), \(sequence)) RETURNING id
        """
    }

    /// Notifications on one channel, in order, and their journal rows when given, in one
    /// statement (one round trip, one transaction: all or none). `pg_notify` runs once per
    /// payload as `unnest` yields them, so they are queued, and delivered, in array order.
    static func notify(channel: String, payloads: [String], journaling records: [ByteBuffer]?, table: AttachmentTable) -> PostgresQuery {
        guard let records else {
            return "SELECT count(pg_notify(\(channel), p)) FROM unnest(\(payloads)::text[]) AS p"
        }
        return "WITH journal AS (INSERT INTO \(unescaped: table.name) (payload) SELECT unnest(\(records)::bytea[])) SELECT count(pg_notify(\(channel), p)) FROM unnest(\(payloads)::text[]) AS p"
    }

    /// As ``notify(channel:payloads:journaling:table:)`` with journal rows that name their
    /// namespace, origin tag and number, for recovery across servers.
    static func notify(
        channel: String, payloads: [String], records: [ByteBuffer], namespace: String, origins: [String], sequences: [Int64], table: AttachmentTable
    ) -> PostgresQuery {
        """
        WITH journal AS (INSERT INTO \(unescaped: table.name) (payload, nsp, origin, seq)
            SELECT u.payload, \(namespace), u.origin, u.seq FROM unnest(\(records)::bytea[], \(origins)::text[], \(sequences)::int8[]) AS u(payload, origin, seq))
        SELECT count(pg_notify(\(channel), p)) FROM unnest(\(payloads)::text[]) AS p
        """
    }

    /// The rows written in the last `interval`, oldest first.
    func rows(since interval: Duration) -> PostgresQuery {
        "SELECT payload FROM \(unescaped: name) WHERE created_at >= now() - interval '\(unescaped: String(interval.wholeMilliseconds)) milliseconds' ORDER BY id"
    }

    /// The id bound as text, as node-postgres sends it; PostgreSQL casts it to `bigint`.
    func select(id: String) -> PostgresQuery {
        "SELECT payload FROM \(unescaped: name) WHERE id = \(id)::bigint"
    }

    /// A block-range index on `created_at`: the cleanup and the journal's time windows find
    /// their rows without reading the table (a few kilobytes for millions of rows, next to
    /// nothing per insert). socket.io's servers, which share the table, use it for their
    /// cleanup too.
    var createdIndex: PostgresQuery {
        let index = (name.split(separator: ".").last.map(String.init) ?? name) + "_created"
        return "CREATE INDEX IF NOT EXISTS \(unescaped: index) ON \(unescaped: name) USING brin (created_at)"
    }

    /// Deletes at most `limit` rows older than `interval`; returns how many it deleted.
    func deleteOlder(than interval: Duration, limit: Int) -> PostgresQuery {
        let milliseconds = interval.wholeMilliseconds
        return """
        WITH gone AS (
            DELETE FROM \(unescaped: name) WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM \(unescaped: name)
                WHERE created_at < now() - interval '\(unescaped: String(milliseconds)) milliseconds' LIMIT \(unescaped: String(limit))))
            RETURNING 1
        )
        SELECT count(*) FROM gone
        """
    }

    /// Deletes the rows older than `interval`, `batch` at a time: each statement is short, so
    /// the publishes queued on `queries` meanwhile wait for one batch, not for the whole
    /// cleanup (one statement deleting 2 million journal rows held the connection for 1.4 s).
    /// Returns the rows deleted and the statements run.
    func deleteOlder(than interval: Duration, on queries: QueryConnection, batch: Int = 2_000) async throws(PostgresClusterTransportError) -> (rows: Int, statements: Int) {
        var (rows, statements) = (0, 0)
        while true {
            let result = try await queries.run(deleteOlder(than: interval, limit: batch))
            statements += 1
            let deleted = (try? result.first?.decode(Int.self)) ?? 0
            rows += deleted
            if deleted < batch { return (rows, statements) }
        }
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        guard let first = part.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return part.unicodeScalars.allSatisfy { $0 == "_" || $0 == "$" || $0.properties.isAlphabetic || ("0" ... "9").contains($0) }
    }
}
