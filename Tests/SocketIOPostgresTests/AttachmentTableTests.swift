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

    @Test("the cleanup deletes rows older than the interval, in milliseconds")
    func cleanupSQL() {
        let table = try? AttachmentTable(name: "t")
        #expect(table?.deleteOlder(than: .seconds(30)).sql == "DELETE FROM t WHERE created_at < now() - interval '30000 milliseconds'")
        #expect(table?.deleteOlder(than: .milliseconds(1500)).sql == "DELETE FROM t WHERE created_at < now() - interval '1500 milliseconds'")
    }
}
