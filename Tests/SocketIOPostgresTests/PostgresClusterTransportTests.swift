import Foundation
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

@testable import SocketIOPostgres

/// Against a real PostgreSQL (`SWITCHBOARD_POSTGRES_URL`); one at a time, since one test stops
/// the server. Each test has its own table and channel prefix.
@Suite("PostgreSQL cluster transport", .serialized)
struct PostgresClusterTransportTests {
    /// Two transports on one database, both subscribed to `/`, and their inboxes.
    struct Pair {
        let url: String
        let name: String
        let a: PostgresClusterTransport
        let b: PostgresClusterTransport
        let inboxA = Inbox()
        let inboxB = Inbox()

        static func make(_ url: String) async throws -> Pair {
            let name = TestDatabase.unique("pair")
            let options = TestDatabase.options(name)
            let pair = Pair(
                url: url,
                name: name,
                a: try await PostgresClusterTransport.connect(url: url, options: options, logger: TestDatabase.logger),
                b: try await PostgresClusterTransport.connect(url: url, options: options, logger: TestDatabase.logger)
            )
            try await pair.a.subscribe(namespace: "/", deliver: pair.inboxA.deliver)
            try await pair.b.subscribe(namespace: "/", deliver: pair.inboxB.deliver)
            return pair
        }

        func shutdown() async {
            await a.shutdown()
            await b.shutdown()
            _ = try? await TestDatabase.psql(url, "DROP TABLE IF EXISTS \(name)")
        }

        func rows() async throws -> Int {
            Int(try await TestDatabase.psql(url, "SELECT count(*) FROM \(name)")) ?? -1
        }
    }

    static func message(_ number: Int, type: ClusterMessageType = .broadcast, _ extra: JSONObject = [:]) -> ClusterMessage {
        var data: JSONObject = ["n": .number(Double(number))]
        for (key, value) in extra { data[key] = value }
        return ClusterMessage(uid: "sender", namespace: "/", type: type, data: data)
    }

    @Test("200 messages arrive at the other server and at the sender, in order")
    func order() async throws {
        guard let url = try TestDatabase.url() else { return }
        let pair = try await Pair.make(url)
        let sent = (0 ..< 200).map { Self.message($0) }
        for message in sent { try await pair.a.publish(message) }
        #expect(try await pair.inboxB.messages.first(200, within: 30, "200 messages at b") == sent)
        #expect(try await pair.inboxA.messages.first(200, within: 30, "200 messages at a") == sent)
        #expect(try await pair.rows() == 0)
        await pair.shutdown()
    }

    @Test("a batch goes out in order: runs of small messages in one statement each, a binary one between them; numbered ones journaled")
    func batch() async throws {
        guard let url = try TestDatabase.url() else { return }
        let pair = try await Pair.make(url)
        var batch: [ClusterMessage] = (1 ... 100).map {
            ClusterMessage(uid: "sender", namespace: "/", type: .broadcast, data: ["n": .number(Double($0))], sequence: UInt64($0))
        }
        batch.insert(Self.message(0, ["bytes": .binary(Data(repeating: 7, count: 20_000))]), at: 50)
        try await pair.a.publish(batch)
        #expect(try await pair.inboxB.messages.first(101, within: 30, "the batch at b") == batch)
        // 100 journal rows for the numbered ones, 1 attachment for the binary one.
        #expect(try await pair.rows() == 101)
        await pair.shutdown()
    }

    @Test("100 KB of binary goes through the attachment table, byte-exact, in order with small messages")
    func binary() async throws {
        guard let url = try TestDatabase.url() else { return }
        let pair = try await Pair.make(url)
        let bytes = Data((0 ..< 100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let large = Self.message(1, ["packet": .array([.string("file"), .binary(bytes)])])
        try await pair.a.publish(Self.message(0))
        try await pair.a.publish(large)
        try await pair.a.publish(Self.message(2))
        let received = try await pair.inboxB.messages.first(3, within: 30, "three messages")
        #expect(received == [Self.message(0), large, Self.message(2)])
        if received.count == 3, case .array(let packet)? = received[1].data?["packet"], case .binary(let got)? = packet.last {
            #expect(got == bytes)
        } else {
            Issue.record("the binary did not arrive")
        }
        #expect(try await pair.rows() == 1)
        await pair.shutdown()
    }

    @Test("a message of 8000 bytes of JSON or more goes through the table")
    func largeJSON() async throws {
        guard let url = try TestDatabase.url() else { return }
        let pair = try await Pair.make(url)
        let large = Self.message(1, ["text": .string(String(repeating: "é", count: 6000))])
        try await pair.a.publish(large)
        #expect(try await pair.inboxB.messages.first(1, within: 30, "the large message") == [large])
        #expect(try await pair.rows() == 1)
        await pair.shutdown()
    }

    @Test("unreadable notifications are skipped and the next message still arrives")
    func malformed() async throws {
        guard let url = try TestDatabase.url() else { return }
        let pair = try await Pair.make(url)
        let channel = "\(pair.name)-io#/"
        try await TestDatabase.psql(url, "NOTIFY \"\(channel)\", 'not json'")
        try await TestDatabase.psql(url, #"NOTIFY "\#(channel)", '{"uid":"x","type":3}'"#)
        try await TestDatabase.psql(url, #"NOTIFY "\#(channel)", '{"uid":"x","type":3,"attachmentId":"999999"}'"#)
        try await TestDatabase.psql(url, #"NOTIFY "\#(channel)", '{"uid":"x","type":3,"attachmentId":"abc"}'"#)
        try await pair.a.publish(Self.message(7))
        #expect(try await pair.inboxB.messages.first(1, within: 30, "the good message") == [Self.message(7)])
        await pair.shutdown()
    }

    @Test("a Node.js-style notification with a numeric attachment id is read")
    func foreignHeader() async throws {
        guard let url = try TestDatabase.url() else { return }
        let pair = try await Pair.make(url)
        let message = Self.message(3, type: .serverSideEmit, ["packet": .array([.binary(Data([9, 8, 7]))])])
        let hex = MessagePackValue(json: message.json).encoded.map { String(format: "%02x", $0) }.joined()
        let id = try await TestDatabase.psql(url, "INSERT INTO \(pair.name) (payload) VALUES ('\\x\(hex)'::bytea) RETURNING id")
        try await TestDatabase.psql(url, #"SELECT pg_notify('\#(pair.name)-io#/', '{"uid":"node","type":9,"attachmentId":\#(id)}')"#)
        #expect(try await pair.inboxB.messages.first(1, within: 30, "the attached message") == [message])
        await pair.shutdown()
    }

    @Test("the attachment table is created when missing")
    func createsTable() async throws {
        guard let url = try TestDatabase.url() else { return }
        let name = TestDatabase.unique("created")
        try await TestDatabase.psql(url, "DROP TABLE IF EXISTS \(name)")
        let transport = try await PostgresClusterTransport.connect(url: url, options: TestDatabase.options(name), logger: TestDatabase.logger)
        #expect(try await TestDatabase.psql(url, "SELECT to_regclass('\(name)') IS NOT NULL") == "t")
        await transport.shutdown()
        try await TestDatabase.psql(url, "DROP TABLE IF EXISTS \(name)")
    }

    @Test("an unreachable database fails connect with unreachable")
    func unreachable() async throws {
        guard try TestDatabase.url() != nil else { return }
        // A port just released: nothing listens there.
        let port = try await TestDatabase.freePort()
        let error = await #expect(throws: PostgresClusterTransportError.self) {
            try await PostgresClusterTransport.connect(url: "postgres://postgres@127.0.0.1:\(port)/postgres", logger: TestDatabase.logger)
        }
        guard case .unreachable? = error else {
            Issue.record("expected unreachable, got \(String(describing: error))")
            return
        }
    }

    @Test("after its listening backend is terminated, the transport listens again")
    func reconnectsAfterTermination() async throws {
        guard let url = try TestDatabase.url() else { return }
        let pair = try await Pair.make(url)
        let terminated = try await TestDatabase.psql(
            url,
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN \"\(pair.name)-io#%' AND pid <> pg_backend_pid()"
        )
        #expect(terminated == "2")
        #expect(try await pair.a.events.first(1, within: 30, "the loss") == [.lost])
        _ = try await pair.a.events.firstMatch(within: 30, "the reconnection") { $0 == .restored }
        try await pair.b.publish(Self.message(1))
        #expect(try await pair.inboxA.messages.first(1, within: 30, "a message after the reconnection") == [Self.message(1)])
        await pair.shutdown()
    }

    @Test("while the server is down publishing throws; once it is back the transports recover")
    func serverRestart() async throws {
        guard let server = try await PrivatePostgres.start() else { return }
        do {
            let pair = try await Pair.make(server.url)
            try await server.pause()
            #expect(try await pair.a.events.first(1, within: 30, "the loss") == [.lost])
            await #expect(throws: PostgresClusterTransportError.self) { try await pair.b.publish(Self.message(0)) }
            try await server.resume()
            _ = try await pair.a.events.firstMatch(within: 30, "the reconnection") { $0 == .restored }
            try await pair.b.publish(Self.message(1))
            #expect(try await pair.inboxA.messages.first(1, within: 30, "a message after the restart") == [Self.message(1)])
            await pair.shutdown()
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test("numbered messages published while a server was not listening are read back from the journal, in order, before new ones")
    func journalCatchUp() async throws {
        guard let server = try await PrivatePostgres.start() else { return }
        do {
            let name = TestDatabase.unique("journal")
            var options = TestDatabase.options(name)
            // The listener comes back late: everything published after the restart and before
            // it listens again would be lost to it without the journal.
            options.reconnectDelay = .seconds(2) ... .seconds(2)
            let listener = try await PostgresClusterTransport.connect(url: server.url, options: options, logger: TestDatabase.logger)
            options.reconnectDelay = .milliseconds(100) ... .milliseconds(100)
            let publisher = try await PostgresClusterTransport.connect(url: server.url, options: options, logger: TestDatabase.logger)
            let inbox = Inbox()
            try await listener.subscribe(namespace: "/", deliver: inbox.deliver)
            func numbered(_ number: Int) -> ClusterMessage {
                ClusterMessage(uid: "publisher", namespace: "/", type: .broadcast, data: ["n": .number(Double(number))], sequence: UInt64(number))
            }
            try await publisher.publish(numbered(1))
            #expect(try await inbox.messages.first(1, within: 30, "the first message") == [numbered(1)])

            try await server.pause()
            _ = try await listener.events.first(1, within: 30, "the loss")
            try await server.resume()
            // Published while the listener waits out its reconnection delay.
            for number in 2 ... 50 { try await publisher.publish(numbered(number)) }
            _ = try await listener.events.firstMatch(within: 30, "the reconnection") { $0 == .restored }
            try await publisher.publish(numbered(51))

            // Every message since the loss, oldest first, up to the new one. A message can come
            // twice (the adapter's numbering drops such copies): the catch-up's margin repeats
            // the first, and one published between the new LISTEN and the journal read (a slow
            // publisher) is both read back and notified. Nothing is missing or out of order.
            let numbers = try await inbox.sequences(through: 51, within: 30, "the caught-up messages and the new one")
            let applied = Inbox.applied(numbers, after: 1)
            #expect(applied == Array(2 ... 51).map(UInt64.init), "\(numbers)")
            await listener.shutdown()
            await publisher.shutdown()
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test("after shutdown, publish and subscribe throw closed")
    func closed() async throws {
        guard let url = try TestDatabase.url() else { return }
        let name = TestDatabase.unique("closed")
        let transport = try await PostgresClusterTransport.connect(url: url, options: TestDatabase.options(name), logger: TestDatabase.logger)
        await transport.shutdown()
        await #expect(throws: PostgresClusterTransportError.closed) { try await transport.publish(Self.message(0)) }
        await #expect(throws: PostgresClusterTransportError.closed) {
            try await transport.subscribe(namespace: "/", deliver: { _ in })
        }
        try await TestDatabase.psql(url, "DROP TABLE IF EXISTS \(name)")
    }
}
