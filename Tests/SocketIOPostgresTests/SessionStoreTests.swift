import Foundation
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

@testable import SocketIOPostgres

/// The transport as a `ClusterSessionStore`, against a real PostgreSQL
/// (`SWITCHBOARD_POSTGRES_URL`): sessions taken once, the old owner's writes ignored after, the
/// journal's last numbers and its ranges per origin. (End to end, with processes and a load
/// balancer: `LoadBalancerTests`.)
@Suite("PostgreSQL session store", .serialized)
struct SessionStoreTests {
    static func broadcast(_ uid: String, _ sequence: UInt64, namespace: String = "/") -> ClusterMessage {
        ClusterMessage(
            uid: uid, namespace: namespace,
            payload: .broadcast(packet: ClusterPacket(event: "tick", items: [.number(Double(sequence))], namespace: namespace), options: ClusterBroadcastOptions(), requestId: nil),
            sequence: sequence
        )
    }

    /// A transport keeping sessions in tables of its own (`prefix` and a unique suffix), prepared
    /// for a two-minute window, given to `body` with the journal table's name; the tables are
    /// dropped after. Returns without running `body` when no PostgreSQL is configured.
    static func withStore(_ prefix: String, _ body: (PostgresClusterTransport, _ journal: String, _ url: String) async throws -> Void) async throws {
        guard let url = try TestDatabase.url() else { return }
        let name = TestDatabase.unique(prefix)
        var options = TestDatabase.options(name)
        options.sessionTableName = name + "_sessions"
        let transport = try await PostgresClusterTransport.connect(url: url, options: options, logger: TestDatabase.logger)
        do {
            try await transport.prepareSessions(retention: .seconds(120))
            try await body(transport, name, url)
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
        _ = try? await TestDatabase.psql(url, "DROP TABLE IF EXISTS \(name); DROP TABLE IF EXISTS \(name)_sessions")
    }

    @Test("a session is taken once (the old owner's writes are ignored after); the journal's last numbers, all or some origins', and its ranges")
    func store() async throws {
        try await Self.withStore("store") { transport, _, _ in
            let (a, b) = ("aaaaaaaa00000001", "bbbbbbbb00000002")
            let sent = [Self.broadcast(a, 1), Self.broadcast(b, 1), Self.broadcast(a, 2), Self.broadcast(a, 3), Self.broadcast(b, 2)]
            try await transport.publish(sent + [Self.broadcast(a, 9, namespace: "/other")])
            #expect(try await transport.lastJournaled(namespace: "/") == ["aaaaaaaa": 3, "bbbbbbbb": 2])
            #expect(try await transport.lastJournaled(namespace: "/", origins: ["bbbbbbbb"]) == ["bbbbbbbb": 2])
            #expect(try await transport.lastJournaled(namespace: "/nobody") == [:])

            // Where its rooms last changed comes back too (a client without an offset is
            // replayed from there).
            let session = ClusterSession(pid: "p1", id: "s1", namespace: "/", rooms: ["s1", "room"], data: ["user": "ada"], roomsOffset: "aaaaaaaa:1!")
            try await transport.writeSessions([.connected(session)], owner: "server-1")
            let taken = try #require(try await transport.takeSession(pid: "p1", namespace: "/", owner: "server-2", maxAge: .seconds(120)))
            #expect(taken.session == session && taken.owner == "server-1")
            // Server 1 no longer has it: its removal is ignored; the next take names server 2.
            try await transport.writeSessions([.removed(pid: "p1")], owner: "server-1")
            let again = try #require(try await transport.takeSession(pid: "p1", namespace: "/", owner: "server-3", maxAge: .seconds(120)))
            #expect(again.owner == "server-2")
            #expect(try await transport.takeSession(pid: "p1", namespace: "/other", owner: "server-3", maxAge: .seconds(120)) == nil)

            // Origin a after 1 through 3; origin b from the session's creation through 2, in
            // the order they were published.
            let ranges = [
                ClusterJournalRange(origin: "aaaaaaaa", after: 1, through: 3),
                ClusterJournalRange(origin: "bbbbbbbb", after: nil, through: 2),
            ]
            let messages = try await transport.journal(namespace: "/", ranges: ranges, since: "-infinity")
            #expect(messages.map { "\($0.originTag):\($0.sequence ?? 0)" } == ["bbbbbbbb:1", "aaaaaaaa:2", "aaaaaaaa:3", "bbbbbbbb:2"])
        }
    }

    @Test("the cleanup deletes the rows older than its retention a batch at a time, and keeps the rest; the table has its block-range index")
    func cleanupInBatches() async throws {
        try await Self.withStore("cleanup") { transport, name, url in
            try await transport.publish((1...25).map { Self.broadcast("aaaaaaaa00000001", UInt64($0)) })
            _ = try await TestDatabase.psql(url, "UPDATE \(name) SET created_at = now() - interval '10 minutes'")
            try await transport.publish((26...30).map { Self.broadcast("aaaaaaaa00000001", UInt64($0)) })
            let (rows, statements) = try await transport.table.deleteOlder(than: .seconds(120), on: transport.queries, batch: 10)
            #expect(rows == 25 && statements == 3)
            #expect(try await TestDatabase.psql(url, "SELECT count(*) FROM \(name)").trimmingCharacters(in: .whitespacesAndNewlines) == "5")
            let indexes = try await TestDatabase.psql(url, "SELECT indexdef FROM pg_indexes WHERE tablename = '\(name)'")
            #expect(indexes.contains("USING brin (created_at)"))
        }
    }

    @Test("the journal is read within the recovery window: an origin whose rows are older names no last number and replays nothing")
    func journalWithinTheWindow() async throws {
        try await Self.withStore("window") { transport, name, url in
            let (a, b) = ("aaaaaaaa00000001", "bbbbbbbb00000002")
            try await transport.publish([Self.broadcast(a, 1), Self.broadcast(a, 2), Self.broadcast(b, 1)])
            // Origin a's rows written three minutes ago, out of the two-minute window.
            _ = try await TestDatabase.psql(url, "UPDATE \(name) SET created_at = now() - interval '3 minutes' WHERE origin = 'aaaaaaaa'")
            #expect(try await transport.lastJournaled(namespace: "/") == ["bbbbbbbb": 1])
            #expect(try await transport.lastJournaled(namespace: "/", origins: ["aaaaaaaa", "bbbbbbbb"]) == ["bbbbbbbb": 1])
            let ranges = [
                ClusterJournalRange(origin: "aaaaaaaa", after: nil, through: 2),
                ClusterJournalRange(origin: "bbbbbbbb", after: 0, through: 1),
            ]
            let messages = try await transport.journal(namespace: "/", ranges: ranges, since: "-infinity")
            #expect(messages.map { "\($0.originTag):\($0.sequence ?? 0)" } == ["bbbbbbbb:1"])
            let known = try await transport.journal(namespace: "/", ranges: [ClusterJournalRange(origin: "aaaaaaaa", after: 0, through: 2)], since: "-infinity")
            #expect(known.isEmpty)
        }
    }

    @Test("a large and a binary numbered broadcast, published through the attachment table, are journaled too: recovery replays them and counts them last")
    func attachmentsAreJournaled() async throws {
        try await Self.withStore("attached") { transport, _, _ in
            let a = "aaaaaaaa00000001"
            let large = ClusterMessage(
                uid: a, namespace: "/",
                payload: .broadcast(packet: ClusterPacket(event: "tick", items: [.string(String(repeating: "x", count: 9_000))], namespace: "/"), options: ClusterBroadcastOptions(), requestId: nil),
                sequence: 2
            )
            let binary = ClusterMessage(
                uid: a, namespace: "/",
                payload: .broadcast(packet: ClusterPacket(event: "tick", items: [.binary(Data([0, 1, 2, 255]))], namespace: "/"), options: ClusterBroadcastOptions(), requestId: nil),
                sequence: 3
            )
            let format = NotificationFormat(channelPrefix: "socket.io", payloadThreshold: 8000)
            guard case .attachment = format.outgoing(large), case .attachment = format.outgoing(binary) else {
                Issue.record("expected both through the attachment table")
                return
            }
            try await transport.publish([Self.broadcast(a, 1), large, binary, Self.broadcast(a, 4)])
            try await transport.publish(ClusterMessage(
                uid: a, namespace: "/",
                payload: .broadcast(packet: ClusterPacket(event: "tick", items: [.binary(Data([9]))], namespace: "/"), options: ClusterBroadcastOptions(), requestId: nil),
                sequence: 5
            ))
            #expect(try await transport.lastJournaled(namespace: "/") == ["aaaaaaaa": 5])
            #expect(try await transport.lastJournaled(namespace: "/", origins: ["aaaaaaaa"]) == ["aaaaaaaa": 5])
            let messages = try await transport.journal(namespace: "/", ranges: [ClusterJournalRange(origin: "aaaaaaaa", after: 0, through: 5)], since: "-infinity")
            #expect(messages.map { $0.sequence ?? 0 } == [1, 2, 3, 4, 5])
            let intact = messages.count == 5 && messages[1] == large && messages[2] == binary
            #expect(intact, "the large and the binary message come back whole")
        }
    }
}
