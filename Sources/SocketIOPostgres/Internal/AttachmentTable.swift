import Foundation
import NIOCore
import PostgresNIO

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
        "SELECT payload FROM \(unescaped: name) WHERE created_at >= now() - interval '\(unescaped: String(Self.milliseconds(interval))) milliseconds' ORDER BY id"
    }

    static func milliseconds(_ interval: Duration) -> Int64 {
        interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000
    }

    /// The id bound as text, as node-postgres sends it; PostgreSQL casts it to `bigint`.
    func select(id: String) -> PostgresQuery {
        "SELECT payload FROM \(unescaped: name) WHERE id = \(id)::bigint"
    }

    func deleteOlder(than interval: Duration) -> PostgresQuery {
        let milliseconds = Self.milliseconds(interval)
        return "DELETE FROM \(unescaped: name) WHERE created_at < now() - interval '\(unescaped: String(milliseconds)) milliseconds'"
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        guard let first = part.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return part.unicodeScalars.allSatisfy { $0 == "_" || $0 == "$" || $0.properties.isAlphabetic || ("0" ... "9").contains($0) }
    }
}
