import PostgresNIO
import Testing

@testable import SocketIOPostgres

@Suite("Attachment table SQL")
struct AttachmentTableTests {
    @Test("table names must be plain identifiers")
    func tableNames() throws {
        _ = try AttachmentTable(name: "socket_io_attachments")
        _ = try AttachmentTable(name: "cluster.attachments")
        for bad in ["", "1table", "a;drop table x", "a b", "\"quoted\"", "a.b.c", "a."] {
            #expect(throws: PostgresClusterTransportError.self) { try AttachmentTable(name: bad) }
        }
    }

    @Test("the cleanup deletes a batch of rows older than the interval, in milliseconds, and counts them")
    func cleanupSQL() {
        let table = try? AttachmentTable(name: "t")
        let sql = table?.deleteOlder(than: .milliseconds(1500), limit: 10_000).sql ?? ""
        #expect(sql.contains("DELETE FROM t WHERE ctid = ANY(ARRAY("))
        #expect(sql.contains("SELECT ctid FROM t\n        WHERE created_at < now() - interval '1500 milliseconds' LIMIT 10000))"))
        #expect(sql.hasSuffix("SELECT count(*) FROM gone"))
        #expect(table?.createdIndex.sql == "CREATE INDEX IF NOT EXISTS t_created ON t USING brin (created_at)")
    }
}
