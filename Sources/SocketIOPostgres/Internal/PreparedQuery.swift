import PostgresNIO

/// A query PostgreSQL parses and plans once per connection, then only binds and executes:
/// the publishing statement, whose parse and plan took about as long as running it.
///
/// postgres-nio names a prepared statement, and reads its SQL, from the statement's type
/// (`static` requirements), while ours differ by the configured table name. So the type
/// reads both from a task-local value that ``QueryConnection/runPrepared(_:)`` sets around
/// the call: the name is a hash of the SQL, so each text is prepared once per connection.
struct PreparedQuery: PostgresPreparedStatement {
    typealias Row = PostgresRow

    /// The statement's text and the name it is prepared under.
    struct Text: Sendable {
        let sql: String
        let name: String

        init(sql: String) {
            self.sql = sql
            self.name = "socketio_" + String(Self.fnv1a(sql), radix: 16)
        }

        /// FNV-1a, 64 bits: a name that is the same in every process for the same text.
        static func fnv1a(_ text: String) -> UInt64 {
            text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
    }

    @TaskLocal static var text = Text(sql: "")

    static var name: String { text.name }
    static var sql: String { text.sql }

    let binds: PostgresBindings

    func makeBindings() throws -> PostgresBindings { binds }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
