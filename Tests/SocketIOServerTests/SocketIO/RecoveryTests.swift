import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Connection state recovery, driven with raw packets (socket.io 4.6+'s wire behaviour).
@Suite("Connection state recovery")
struct RecoveryTests {
    /// An event of `/news`: its items and the offset the server appended.
    static func event(_ text: String) throws -> (items: [JSONValue], offset: String) {
        let prefix = "42/news,"
        guard text.hasPrefix(prefix), case .array(var items) = try JSONValue(parsing: String(text.dropFirst(prefix.count))),
              let offset = items.popLast()?.stringValue else {
            throw UnexpectedMessage(expected: "an event with an offset", got: .text(text))
        }
        return (items, offset)
    }

    /// A raw client joined to `/news` on `port`, with its sid and pid.
    static func joinNews(port: Int) async throws -> (client: EngineWebSocket, sid: String, pid: String) {
        let client = try await EngineWebSocket.open(port: port)
        let reply = try await client.connect("/news")
        return (client, try #require(reply["sid"]?.stringValue), try #require(reply["pid"]?.stringValue))
    }

    /// Waits for socket `id` of `/news` to drop (after event `mark` of the server's log).
    static func waitForDrop(_ demo: DemoServer, id: String, after mark: Int = 0) async throws {
        try await demo.events.wait("the socket drops", after: mark) {
            if case .socketDisconnected("/news", id, .transportClose) = $0 { return true }
            return false
        }
    }

    /// A client joins `/news` on `demo` and gets `tick 1` (with an offset); then its transport
    /// drops, without a goodbye. Returns its sid, pid and that event.
    static func connectThenDrop(_ demo: DemoServer) async throws -> (sid: String, pid: String, tick1: (items: [JSONValue], offset: String)) {
        let first = try await EngineWebSocket.open(port: demo.port)
        let reply = try await first.connect("/news")
        let sid = try #require(reply["sid"]?.stringValue)
        let pid = try #require(reply["pid"]?.stringValue)
        demo.server.namespace("/news").emit("tick", 1)
        let tick1 = try Self.event(try await first.next())
        first.socket.drop()
        try await Self.waitForDrop(demo, id: sid)
        return (sid, pid, tick1)
    }

    @Test("a dropped client gets the events it missed, once and in order, before the CONNECT reply with the same sid and pid; after the window, a fresh session")
    func recovery() async throws {
        let clock = ManualClock()
        let recoveredFlags = NIOLockedValueBox<[Bool]>([])
        // Connection handlers run after the CONNECT reply (socket.io's order): wait for them.
        let handled = AsyncStream<Int>.makeStream()
        let waitForHandlers: @Sendable (Int) async throws -> Void = { count in
            if recoveredFlags.withLockedValue({ $0.count }) >= count { return }
            _ = try await handled.stream.firstMatch(within: 10, "connection handler \(count)") { $0 >= count }
        }
        try await DemoServer.with({ configuration in
            configuration.recovery = .enabled(maxDisconnectionDuration: .seconds(120))
            configuration.clock = clock
        }, setup: { server in
            server.namespace("/news").onConnection { socket in
                socket.join("room1")
                let count = recoveredFlags.withLockedValue { flags in
                    flags.append(socket.recovered)
                    return flags.count
                }
                handled.continuation.yield(count)
            }
        }) { demo in
            let news = demo.server.namespace("/news")

            // Connect (every event carries an offset); the transport drops (no goodbye), and
            // events keep coming while the client is away.
            let (sid, pid, tick1) = try await Self.connectThenDrop(demo)
            #expect(tick1.items == ["tick", 1])
            news.emit("tick", 2)
            news.to("room1").emit("tick", 3)
            news.to("elsewhere").emit("tick", 99)
            news.volatile.emit("tick", 98)

            // Reconnect with pid and offset: the missed events, then the reply.
            let second = try await EngineWebSocket.open(port: demo.port)
            try second.send(#"40/news,{"pid":"\#(pid)","offset":"\#(tick1.offset)"}"#)
            let tick2 = try Self.event(try await second.next("the first missed event"))
            let tick3 = try Self.event(try await second.next("the second missed event"))
            #expect(tick2.items == ["tick", 2])
            #expect(tick3.items == ["tick", 3])
            let recoveredReply = try await second.next("the CONNECT reply")
            #expect(recoveredReply == #"40/news,{"sid":"\#(sid)","pid":"\#(pid)"}"#)
            try await waitForHandlers(2)
            #expect(recoveredFlags.withLockedValue { $0 } == [false, true])

            // Back in its rooms; nothing is delivered twice.
            news.to("room1").emit("tick", 4)
            let tick4 = try Self.event(try await second.next())
            #expect(tick4.items == ["tick", 4])
            let socket = try #require(news.socket(id: sid))
            #expect(socket.recovered)
            #expect(socket.rooms == [sid, "room1"])

            // Dropped again, and back after the window: a fresh session, nothing replayed.
            let mark = demo.events.count
            second.socket.drop()
            try await Self.waitForDrop(demo, id: sid, after: mark)
            news.emit("tick", 5)
            clock.advance(by: .seconds(121))
            let third = try await EngineWebSocket.open(port: demo.port)
            let fresh = try await third.connect("/news", auth: #"{"pid":"\#(pid)","offset":"\#(tick4.offset)"}"#)
            #expect(fresh["sid"]?.stringValue != sid)
            #expect(fresh["pid"]?.stringValue != pid)
            #expect(fresh["pid"] != nil)
            try await waitForHandlers(3)
            #expect(recoveredFlags.withLockedValue { $0 } == [false, true, false])
            third.socket.drop()
        }
    }

    @Test("a client that missed more bytes than may wait for it (maxQueuedBytes) gets a fresh session: no replay that would overflow its new connection, again at every reconnection")
    func missedMoreThanFits() async throws {
        try await DemoServer.with({ configuration in
            configuration.recovery = .enabled(maxDisconnectionDuration: .seconds(120))
            configuration.maxQueuedBytes = 64 * 1024
        }) { demo in
            let news = demo.server.namespace("/news")
            let (sid, pid, tick1) = try await Self.connectThenDrop(demo)
            // 100 events of 1 KB while it is away: more than the 64 KB that may wait for it.
            for _ in 0 ..< 100 { news.emit("tick", .string(String(repeating: "x", count: 1024))) }

            let second = try await EngineWebSocket.open(port: demo.port)
            let fresh = try await second.connect("/news", auth: #"{"pid":"\#(pid)","offset":"\#(tick1.offset)"}"#)
            #expect(fresh["sid"]?.stringValue != sid)
            #expect(fresh["pid"]?.stringValue != pid)
            second.socket.drop()
        }
    }

    /// A link that died silently (the client's address vanished): the server still holds the
    /// old connection when the client comes back on a new one. The private id proves who it is,
    /// so the old connection is taken as lost and the session recovered at once.
    @Test("a client recovering while its old connection still looks open takes its session over")
    func takeover() async throws {
        try await DemoServer.with({ $0.recovery = .enabled() }, setup: { server in
            server.namespace("/news").onConnection { _ in }
        }) { demo in
            let news = demo.server.namespace("/news")
            let (first, sid, pid) = try await Self.joinNews(port: demo.port)
            news.emit("tick", 1)
            let tick1 = try Self.event(try await first.next())

            // The old connection stays open (nothing told the server); the client stops reading
            // it and comes back on a new one.
            first.socket.connection.pauseReading()
            news.emit("tick", 2)
            let second = try await EngineWebSocket.open(port: demo.port)
            try second.send(#"40/news,{"pid":"\#(pid)","offset":"\#(tick1.offset)"}"#)
            let tick2 = try Self.event(try await second.next("the event the old connection got but the client never read"))
            #expect(tick2.items == ["tick", 2])
            let recoveredReply = try await second.next("the CONNECT reply")
            #expect(recoveredReply == #"40/news,{"sid":"\#(sid)","pid":"\#(pid)"}"#)
            // The socket takes its place in the namespace right after the reply is written.
            try await withTimeout(10, "the recovered socket in the namespace") {
                while news.socket(id: sid) == nil { await Task.yield() }
            }
            #expect(news.socket(id: sid)?.recovered == true)
            first.socket.connection.resumeReading()
            try await first.socket.waitForClose()

            // Exactly once from here: the next event reaches the new connection only.
            news.emit("tick", 3)
            let tick3 = try Self.event(try await second.next())
            #expect(tick3.items == ["tick", 3])
            second.socket.drop()
        }
    }

    @Test("a client that kept no offset (it had been sent no event) recovers with its pid alone and gets every event sent to it; not once the log dropped one")
    func recoveryWithoutAnOffset() async throws {
        try await DemoServer.with({ $0.recovery = .enabled(maxDisconnectionDuration: .seconds(120), maxStoredPackets: 3) }, setup: { server in
            server.namespace("/news").onConnection { socket in
                if !socket.recovered { socket.join("room1") }
            }
        }) { demo in
            let news = demo.server.namespace("/news")
            let (first, sid, pid) = try await Self.joinNews(port: demo.port)
            first.socket.drop()
            try await Self.waitForDrop(demo, id: sid)
            news.to("room1").emit("tick", 1)
            news.to("elsewhere").emit("tick", 99)
            news.emit("tick", 2)

            // socket.io's clients send the pid alone then (`40/news,{"pid":…}`).
            let second = try await EngineWebSocket.open(port: demo.port)
            try second.send(#"40/news,{"pid":"\#(pid)"}"#)
            #expect(try Self.event(try await second.next("the first missed event")).items == ["tick", 1])
            #expect(try Self.event(try await second.next("the second missed event")).items == ["tick", 2])
            #expect(try await second.next("the CONNECT reply") == #"40/news,{"sid":"\#(sid)","pid":"\#(pid)"}"#)
            let socket = try #require(news.socket(id: sid))
            #expect(socket.recovered && socket.rooms == [sid, "room1"])

            // Away again, without an offset again (as a client that lost the first ones would
            // be), while more events go out than the log keeps: a fresh session.
            let mark = demo.events.count
            second.socket.drop()
            try await Self.waitForDrop(demo, id: sid, after: mark)
            for number in 3 ... 6 { news.emit("tick", .number(Double(number))) }
            let third = try await EngineWebSocket.open(port: demo.port)
            let fresh = try await third.connect("/news", auth: #"{"pid":"\#(pid)"}"#)
            #expect(fresh["sid"]?.stringValue != sid && fresh["pid"]?.stringValue != pid, "\(fresh)")
            third.socket.drop()
        }
    }

    @Test("an unknown pid or offset gets a fresh session (socket.io's own test)")
    func unknownSession() async throws {
        try await DemoServer.with({ $0.recovery = .enabled() }, setup: { server in
            server.namespace("/news").onConnection { _ in }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            let reply = try await client.connect("/news", auth: #"{"pid":"foo","offset":"bar"}"#)
            #expect(reply["sid"] != nil)
            #expect(reply["pid"]?.stringValue != "foo")

            // A known pid with an offset the server never sent: fresh too.
            let sid = try #require(reply["sid"]?.stringValue)
            let pid = try #require(reply["pid"]?.stringValue)
            client.socket.drop()
            try await Self.waitForDrop(demo, id: sid)
            let again = try await EngineWebSocket.open(port: demo.port)
            let second = try await again.connect("/news", auth: #"{"pid":"\#(pid)","offset":"never-sent"}"#)
            #expect(second["sid"]?.stringValue != sid)
            again.socket.drop()
        }
    }

    @Test("explicit disconnects are not recoverable; acked events carry no offset")
    func notRecoverable() async throws {
        try await DemoServer.with({ $0.recovery = .enabled() }, setup: { server in
            server.namespace("/news").onConnection { socket in
                socket.on("leave-now") { _ in socket.disconnect() }
            }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            let reply = try await client.connect("/news")
            let sid = try #require(reply["sid"]?.stringValue)
            let pid = try #require(reply["pid"]?.stringValue)
            let socket = try #require(demo.server.namespace("/news").socket(id: sid))
            let ask = Task { try await socket.emitWithAck("question", timeout: .seconds(5)) }
            #expect(try await client.next() == #"42/news,0["question"]"#)
            try client.send(#"43/news,0["yes"]"#)
            #expect(try await ask.value == ["yes"])
            socket.emit("hello")
            let hello = try Self.event(try await client.next())
            try client.send(#"42/news,["leave-now"]"#)
            #expect(try await client.next() == "41/news,")
            let fresh = try await client.connect("/news", auth: #"{"pid":"\#(pid)","offset":"\#(hello.offset)"}"#)
            #expect(fresh["sid"]?.stringValue != sid)
            client.socket.drop()
        }
    }

    /// A kept session that expires takes its timer slot with it: a long-lived server used to keep
    /// one per client that dropped and never came back.
    @Test("a dropped session that expires frees its expiry timer's slot")
    func anExpiredSessionFreesItsTimerSlot() async throws {
        let clock = ManualClock()
        try await DemoServer.with({ configuration in
            configuration.recovery = .enabled(maxDisconnectionDuration: .seconds(300))
            configuration.clock = clock
        }, setup: { server in
            server.namespace("/news").onConnection { _ in }
        }) { demo in
            let news = demo.server.namespace("/news")
            let (sid, _, _) = try await Self.connectThenDrop(demo)
            #expect(news.expiries.count == 1, "kept, its expiry armed")
            await clock.waitForSleeper(dueAt: .seconds(300))
            clock.advance(by: .seconds(301))
            try await withTimeout(10, "the kept session expires") {
                while news.membership({ $0.members[sid] }) != nil { await Task.yield() }
            }
            #expect(news.expiries.count == 0)
        }
    }
}
