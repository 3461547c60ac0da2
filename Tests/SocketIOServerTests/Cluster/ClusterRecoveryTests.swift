import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

@testable import SocketIOServer

/// Connection state recovery across the servers of a cluster whose transport keeps sessions
/// (``ClusterSessionStore``), in one process over an in-memory store; raw packets on the wire.
/// The same over PostgreSQL, with processes and a load balancer: `LoadBalancerTests`.
@Suite("Connection state recovery across servers")
struct ClusterRecoveryTests {
    /// A server's configuration on `bus` and `shared` (recovery on, the in-memory store).
    static func configure(bus: LocalClusterBus, shared: MemorySessionStore.Shared, options: ClusterOptions) -> (inout SocketIOServer.Configuration) -> Void {
        { configuration in
            configuration.recovery = .enabled(maxDisconnectionDuration: .seconds(120))
            configuration.adapter = .cluster(MemorySessionStore(bus: bus, shared: shared), options)
        }
    }

    /// `/news`, where a new socket joins `room1` and gets data; `sockets` collects what the
    /// connection handler saw.
    static func setup(_ sockets: NIOLockedValueBox<[ServerSocket]>) -> (SocketIOServer) -> Void {
        { server in
            server.namespace("/news").onConnection { socket in
                if !socket.recovered {
                    // Data first: a client that got a room1 event knows both are recorded.
                    socket.data = ["user": "ada"]
                    socket.join("room1")
                }
                sockets.withLockedValue { $0.append(socket) }
            }
        }
    }

    /// Two servers on one bus and one store, each with `/news` (``setup(_:)``), and what their
    /// connection handlers saw.
    static func withTwoServers(
        options: ClusterOptions = ClusterOptions(),
        _ body: (DemoServer, DemoServer, MemorySessionStore.Shared, NIOLockedValueBox<[ServerSocket]>) async throws -> Void
    ) async throws {
        try await withTwoServers(options: options) { a, b, _, shared, sockets in try await body(a, b, shared, sockets) }
    }

    /// As ``withTwoServers(options:_:)-…``, also giving `body` the bus.
    static func withTwoServers(
        options: ClusterOptions = ClusterOptions(),
        _ body: (DemoServer, DemoServer, LocalClusterBus, MemorySessionStore.Shared, NIOLockedValueBox<[ServerSocket]>) async throws -> Void
    ) async throws {
        let bus = LocalClusterBus()
        let shared = MemorySessionStore.Shared()
        let sockets = NIOLockedValueBox<[ServerSocket]>([])
        let configure = Self.configure(bus: bus, shared: shared, options: options)
        try await DemoServer.with(configure, setup: setup(sockets)) { a in
            try await DemoServer.with(configure, setup: setup(sockets)) { b in
                try await withTimeout(10, "both servers see each other") {
                    await a.server.namespace("/news").waitForServers(2)
                    await b.server.namespace("/news").waitForServers(2)
                }
                try await body(a, b, bus, shared, sockets)
            }
        }
    }

    /// A client joins `/news` on `server` and gets `tick 1` there; its session is in the store
    /// and its transport dropped. Returns its sid, pid and offset.
    static func connectThenDrop(_ server: DemoServer) async throws -> (sid: String, pid: String, offset: String) {
        let news = server.server.namespace("/news")
        let client = try await EngineWebSocket.open(port: server.port)
        let reply = try await client.connect("/news")
        let sid = try #require(reply["sid"]?.stringValue)
        let pid = try #require(reply["pid"]?.stringValue)
        news.to("room1").emit("tick", 1)
        let tick = try RecoveryTests.event(try await client.next("tick 1"))
        await news.durable?.keeper.flush()
        client.socket.drop()
        try await RecoveryTests.waitForDrop(server, id: sid)
        return (sid, pid, tick.offset)
    }

    /// Reads packets until the CONNECT reply (`40/news,{…}`); returns the events before and after it.
    static func readThroughReply(_ socket: EngineWebSocket, events expected: Int) async throws -> (events: [(items: [JSONValue], offset: String)], reply: String) {
        var events: [(items: [JSONValue], offset: String)] = []
        var reply: String?
        while reply == nil || events.count < expected {
            let packet = try await socket.next("an event or the CONNECT reply")
            if packet.hasPrefix("40/news,") {
                reply = packet
            } else if packet != "2" {
                events.append(try RecoveryTests.event(packet))
            } else {
                try socket.send("3")
            }
        }
        return (events, reply ?? "")
    }

    @Test("a client whose transport dropped recovers on the other server: broadcasts of both servers and direct emits made meanwhile, once, each server's in order; same sid, pid, rooms")
    func recoversOnTheOtherServer() async throws {
        try await Self.withTwoServers { a, b, shared, sockets in
            let newsA = a.server.namespace("/news")
            let newsB = b.server.namespace("/news")
            let (first, sid, pid) = try await RecoveryTests.joinNews(port: a.port)
            newsB.to("room1").emit("tick", 1)
            let tick1 = try RecoveryTests.event(try await first.next("tick 1 from server b"))
            #expect(tick1.items == ["tick", 1])
            // The session with its room is in the store (within a write's round trip, or a
            // later takeover would get it without the room).
            await newsA.durable?.keeper.flush()

            // The transport drops; both servers keep emitting, server a to the socket directly.
            first.socket.drop()
            try await RecoveryTests.waitForDrop(a, id: sid)
            let kept = try #require(sockets.withLockedValue { $0.first { $0.id == sid } })
            kept.emit("direct", 2)
            newsB.to("room1").emit("tick", 3)
            newsA.emit("tick", 4)
            newsB.to("elsewhere").emit("tick", 99)
            newsA.volatile.emit("tick", 98)
            newsB.volatile.emit("tick", 97)

            // Back on server b with pid and offset.
            let second = try await EngineWebSocket.open(port: b.port)
            try second.send(#"40/news,{"pid":"\#(pid)","offset":"\#(tick1.offset)"}"#)
            let (events, recoveredReply) = try await Self.readThroughReply(second, events: 3)
            #expect(recoveredReply == #"40/news,{"sid":"\#(sid)","pid":"\#(pid)"}"#)
            let items = events.map(\.items)
            #expect(items.count == 3 && Set(items.map { JSONValue.array($0).jsonString }) == Set([#"["direct",2]"#, #"["tick",3]"#, #"["tick",4]"#]), "\(items)")
            let fromA = items.filter { $0 != ["tick", 3] }
            #expect(fromA == [["direct", 2], ["tick", 4]], "server a's events in its order")
            let socket = try #require(newsB.socket(id: sid))
            #expect(socket.recovered)
            #expect(socket.rooms == [sid, "room1"])
            #expect(socket.data == ["user": "ada"])

            // Nothing twice afterwards; the store says server b has it.
            newsA.to("room1").emit("tick", 5)
            let tick5 = try RecoveryTests.event(try await second.next("tick 5"))
            #expect(tick5.items == ["tick", 5])
            newsB.to(sid).emit("tick", 6)
            #expect(try RecoveryTests.event(try await second.next("tick 6")).items == ["tick", 6])
            let row = try #require(shared.rows[pid])
            #expect(row.session.id == sid && !row.disconnected)
            #expect(row.session.rooms.sorted() == [sid, "room1"].sorted())
            second.socket.drop()
        }
    }

    @Test("a client that kept no offset (its server stopped before sending it an event) recovers on the other server with its pid alone: every event to its rooms after it joined them, none from before")
    func recoversWithoutAnOffset() async throws {
        try await Self.withTwoServers { a, b, shared, _ in
            let newsA = a.server.namespace("/news")
            let newsB = b.server.namespace("/news")
            // Before the client joins room1 (delivered at once on its server): not its event.
            newsA.to("room1").emit("tick", 90)
            let (first, sid, pid) = try await RecoveryTests.joinNews(port: a.port)
            // In room1 now (the connection handler's join, which may come later, changes nothing).
            try #require(newsA.socket(id: sid)).join("room1")
            await newsA.durable?.keeper.flush()
            #expect(shared.rows[pid]?.session.roomsOffset != nil, "where its rooms last changed is in the store")

            // Its transport drops before it was sent anything; events go to its rooms meanwhile.
            first.socket.drop()
            try await RecoveryTests.waitForDrop(a, id: sid)
            newsB.to("room1").emit("tick", 1)
            newsA.to(sid).emit("direct", 2)
            newsB.to("elsewhere").emit("tick", 99)

            let second = try await EngineWebSocket.open(port: b.port)
            try second.send(#"40/news,{"pid":"\#(pid)"}"#)
            let (events, recoveredReply) = try await Self.readThroughReply(second, events: 2)
            #expect(recoveredReply == #"40/news,{"sid":"\#(sid)","pid":"\#(pid)"}"#)
            let items = Set(events.map { JSONValue.array($0.items).jsonString })
            #expect(items == Set([#"["tick",1]"#, #"["direct",2]"#]), "\(events.map(\.items))")
            let socket = try #require(newsB.socket(id: sid))
            #expect(socket.recovered && socket.rooms == [sid, "room1"])
            newsA.to("room1").emit("tick", 3)
            #expect(try RecoveryTests.event(try await second.next("tick 3")).items == ["tick", 3], "nothing replayed twice")
            second.socket.drop()
        }
    }

    @Test("emits after the adapter closed (a server stopping) still reach the clients, with offsets of their own, and return")
    func emitsAfterTheAdapterClosed() async throws {
        try await Self.withTwoServers { a, _, _, sockets in
            let newsA = a.server.namespace("/news")
            let client = try await EngineWebSocket.open(port: a.port)
            let reply = try await client.connect("/news")
            let sid = try #require(reply["sid"]?.stringValue)
            let socket = try #require(sockets.withLockedValue { $0.first { $0.id == sid } })
            await newsA.stopCluster()
            #expect(newsA.all.emit("tick", 1) == 1)
            #expect(socket.emit("direct", 2))
            let tick = try RecoveryTests.event(try await client.next("tick 1"))
            let direct = try RecoveryTests.event(try await client.next("direct 2"))
            #expect(tick.items == ["tick", 1] && direct.items == ["direct", 2])
            #expect(tick.offset != direct.offset && tick.offset.contains("!"), "\(tick.offset) \(direct.offset)")
            client.socket.drop()
        }
    }

    @Test("an unknown pid, or an offset that is not a cluster offset, gets a fresh session")
    func freshSessions() async throws {
        try await Self.withTwoServers { a, b, _, _ in
            let (first, sid, pid) = try await RecoveryTests.joinNews(port: a.port)
            first.socket.drop()
            try await RecoveryTests.waitForDrop(a, id: sid)
            for auth in [#"{"pid":"nope","offset":"1f2e3d4c:1"}"#, #"{"pid":"\#(pid)","offset":"k3"}"#] {
                let next = try await EngineWebSocket.open(port: b.port)
                let fresh = try await next.connect("/news", auth: auth)
                #expect(fresh["sid"]?.stringValue != sid, "\(auth)")
                #expect(fresh["pid"]?.stringValue != pid, "\(auth)")
                next.socket.drop()
            }
        }
    }

    @Test("a session store that stops answering: a recovering client gets a fresh session after requestTimeout, and a stopping server gives up its last writes after it; neither hangs")
    func storeStopsAnswering() async throws {
        try await Self.withTwoServers(options: ClusterOptions(requestTimeout: .seconds(2))) { a, b, shared, _ in
            // The servers' start reads the journal within publishTimeout (15 s), not this bound:
            // a suite starting hundreds of tests at once on two cores held that read past 2 s.
            defer { shared.release() }
            let (sid, pid, offset) = try await Self.connectThenDrop(a)

            shared.stall()
            let second = try await EngineWebSocket.open(port: b.port)
            let fresh = try await second.connect("/news", auth: #"{"pid":"\#(pid)","offset":"\#(offset)"}"#)
            #expect(fresh["sid"]?.stringValue != sid)
            #expect(fresh["pid"]?.stringValue != pid)
            #expect(shared.stuckCalls >= 1, "the take is still waiting in the store")
            // The fresh session's row cannot be written either; stopping does not wait for it.
            try await withTimeout(10, "server b leaves the cluster though its store does not answer") {
                await b.server.namespace("/news").stopCluster()
            }
            second.socket.drop()
        }
    }

    @Test("a server leaving the cluster while a client recovers on it closes the connection instead of giving a fresh session; the session stays in the store and the client recovers on another server")
    func recoveryInterruptedByLeaving() async throws {
        try await Self.withTwoServers { a, b, shared, _ in
            let (sid, pid, offset) = try await Self.connectThenDrop(a)
            // Server b is leaving (its adapter closing, as in `stop()`): a restore there can no
            // longer publish or read what it needs.
            let newsB = b.server.namespace("/news")
            try await #require(newsB.cluster).shutdown()

            let onB = try await EngineWebSocket.open(port: b.port)
            try onB.send(#"40/news,{"pid":"\#(pid)","offset":"\#(offset)"}"#)
            let packets = try await withTimeout(10, "server b closes the connection") { () async throws -> [String] in
                var packets: [String] = []
                while true {
                    do {
                        switch try await onB.socket.next() {
                        case .text(let text): packets.append(text)
                        case .close: return packets
                        default: continue
                        }
                    } catch is RawConnection.Closed {
                        return packets
                    }
                }
            }
            #expect(!packets.contains { $0.hasPrefix("40/news,") }, "no CONNECT reply, fresh or not: \(packets)")
            await newsB.durable?.keeper.flush()
            #expect(shared.rows[pid] != nil, "the session is still in the store")

            let onA = try await EngineWebSocket.open(port: a.port)
            let recovered = try await onA.connect("/news", auth: #"{"pid":"\#(pid)","offset":"\#(offset)"}"#)
            #expect(recovered["sid"]?.stringValue == sid)
            #expect(recovered["pid"]?.stringValue == pid)
            onA.socket.drop()
        }
    }

    @Test("a client that missed more events than a session keeps gets a fresh session at once: no replay that would overflow its connection, again at every reconnection")
    func tooManyMissedEvents() async throws {
        try await Self.withTwoServers { a, b, _, _ in
            let newsA = a.server.namespace("/news")
            let (sid, pid, offset) = try await Self.connectThenDrop(a)
            for index in 0 ... ConnectionStateRecovery().maxStoredPackets {
                newsA.to("room1").emit("tick", .number(Double(index)))
            }
            try await #require(newsA.cluster).publishAwaiting(.none(.heartbeat))

            let second = try await EngineWebSocket.open(port: b.port)
            let fresh = try await second.connect("/news", auth: #"{"pid":"\#(pid)","offset":"\#(offset)"}"#)
            #expect(fresh["sid"]?.stringValue != sid)
            #expect(fresh["pid"]?.stringValue != pid)
            second.socket.drop()
        }
    }

    @Test("a server started after the events a client missed, from a server gone since: the client recovers there at once with every one of them, from the journal")
    func recoversOnAServerStartedLater() async throws {
        try await Self.withTwoServers { a, _, bus, shared, sockets in
            let newsA = a.server.namespace("/news")
            let (sid, pid, offset) = try await Self.connectThenDrop(a)
            newsA.to("room1").emit("tick", 2)
            newsA.to("room1").emit("tick", 3)
            // Published (so journaled) in order before this returns; then server a is gone
            // (every message is numbered, heartbeats too: only a server that left is silent).
            try await #require(newsA.cluster).publishAwaiting(.none(.heartbeat))
            await a.stop()

            try await DemoServer.with(Self.configure(bus: bus, shared: shared, options: ClusterOptions()), setup: Self.setup(sockets)) { c in
                let second = try await EngineWebSocket.open(port: c.port)
                try second.send(#"40/news,{"pid":"\#(pid)","offset":"\#(offset)"}"#)
                let (events, recoveredReply) = try await Self.readThroughReply(second, events: 2)
                #expect(recoveredReply == #"40/news,{"sid":"\#(sid)","pid":"\#(pid)"}"#)
                #expect(events.map(\.items) == [["tick", 2], ["tick", 3]])
                second.socket.drop()
            }
        }
    }

    /// Every connection event of `demo` about socket `id` (connected or disconnected).
    static func socketEvents(_ demo: DemoServer, id: String) -> [ConnectionEvent] {
        demo.events.all.filter { event in
            switch event {
            case .socketConnected(_, id, _, _), .socketDisconnected(_, id, _): true
            case .sessionOpened, .sessionUpgraded, .sessionClosed, .socketConnected, .socketDisconnected, .socketRefused,
                 .plainWebSocketOpened, .plainWebSocketClosed: false
            }
        }
    }

    @Test("a session that closes while the store is slow to give its socket back (the client's pong waits behind its CONNECT): the socket made for it is never reported, connected or disconnected, and the session is kept for a later recovery")
    func sessionClosesWhileRestoring() async throws {
        let bus = LocalClusterBus()
        let shared = MemorySessionStore.Shared()
        defer { shared.release() }
        let sockets = NIOLockedValueBox<[ServerSocket]>([])
        // Long enough that the take waits for the test, not for its bound.
        let configure = Self.configure(bus: bus, shared: shared, options: ClusterOptions(requestTimeout: .seconds(30)))
        // Server b pings often: a session whose CONNECT waits misses its pong.
        let shortHeartbeat: (inout SocketIOServer.Configuration) -> Void = {
            configure(&$0)
            $0.pingInterval = .seconds(1)
            $0.pingTimeout = .seconds(1)
        }
        try await DemoServer.with(configure, setup: Self.setup(sockets)) { a in
            try await DemoServer.with(shortHeartbeat, setup: Self.setup(sockets)) { b in
                let newsB = b.server.namespace("/news")
                try await withTimeout(10, "both servers see each other") {
                    await a.server.namespace("/news").waitForServers(2)
                    await newsB.waitForServers(2)
                }
                let uidB = try #require(newsB.cluster).uid
                let (sid, pid, offset) = try await Self.connectThenDrop(a)
                await a.server.namespace("/news").durable?.keeper.flush()

                shared.stall()
                let second = try await EngineWebSocket.open(port: b.port)
                let engineSID = try #require(second.sid)
                try second.send(#"40/news,{"pid":"\#(pid)","offset":"\#(offset)"}"#)
                _ = try await shared.takes.stream.firstMatch(within: 10, "server b takes the session") { $0 == pid }
                // The take waits; messages wait behind the CONNECT, the client's pong too.
                #expect(try await b.events.closeReason(of: engineSID) == "ping timeout")
                shared.release()
                // The restore goes on and ends in a socket of a closed connection: server b
                // writes the session back as dropped.
                _ = try await shared.writes.stream.firstMatch(within: 10, "server b keeps the session as dropped") {
                    $0.owner == uidB && $0.changes.contains(.disconnected(pid: pid))
                }

                // Still recoverable: the client comes back to server b.
                let third = try await EngineWebSocket.open(port: b.port)
                let thirdSID = try #require(third.sid)
                try third.send(#"40/news,{"pid":"\#(pid)","offset":"\#(offset)"}"#)
                let (_, reply) = try await Self.readThroughReply(third, events: 0)
                #expect(reply == #"40/news,{"sid":"\#(sid)","pid":"\#(pid)"}"#)
                let connected = ConnectionEvent.socketConnected(namespace: "/news", id: sid, sid: thirdSID, recovered: true)
                try await b.events.wait("the recovered socket connects") { $0 == connected }
                // Server b told the app of the socket once: when it connected.
                #expect(Self.socketEvents(b, id: sid) == [connected])
                third.socket.drop()
            }
        }
    }
}
