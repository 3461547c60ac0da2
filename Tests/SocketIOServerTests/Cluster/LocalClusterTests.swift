import CoreMetrics
import Foundation
import MetricsTestKit
import SocketIO
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Three servers in one process joined by a ``LocalClusterBus``: socket.io's cluster protocol
/// end to end, with a client of ours on each server.
@Suite("Cluster adapter over the in-process bus")
struct LocalClusterTests {
    static func bus(_ count: Int) -> (LocalClusterBus, [LocalClusterBus.Endpoint]) {
        let bus = LocalClusterBus()
        return (bus, (0..<count).map { _ in bus.endpoint() })
    }

    @Test("a broadcast from any server reaches the clients of all three")
    func broadcastReachesEveryServer() async throws {
        let (_, endpoints) = Self.bus(3)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            for (index, sender) in cluster.sockets.enumerated() {
                let streams = cluster.sockets.map { $0.events(named: "news") }
                _ = try await sender.emitWithAck("all", .string("from \(index)"))
                for stream in streams {
                    let news = try await stream.first(1, "news from server \(index)")
                    #expect(news.map(\.items) == [[.string("from \(index)")]])
                }
            }
        }
    }

    @Test("a room spanning servers gets a room message once per member, and only its members")
    func roomAcrossServers() async throws {
        let (_, endpoints) = Self.bus(3)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            let (first, second, third) = (cluster.sockets[0], cluster.sockets[1], cluster.sockets[2])
            _ = try await first.emitWithAck("join", "r")
            _ = try await third.emitWithAck("join", "r")
            let inRoom = [first, third].map { $0.events(named: "room-message") }
            let outside = second.events(named: "room-message")
            let outsideNews = second.events(named: "news")
            _ = try await second.emitWithAck("to-room", "r", "hello room")
            // Then a marker to everyone: a member sees the room message exactly once before it.
            let markers = [first, third].map { $0.events(named: "news") }
            _ = try await second.emitWithAck("all", "marker")
            for (stream, marker) in zip(inRoom, markers) {
                #expect(try await stream.first(1, "the room message").map(\.items) == [["hello room"]])
                _ = try await marker.first(1, "the marker")
            }
            _ = try await outsideNews.first(1, "the marker outside the room")
            // The non-member's stream has nothing: finish it by disconnecting, then read it.
            await cluster.managers[1].close()
            var received: [SocketEvent] = []
            for await event in outside { received.append(event) }
            #expect(received.isEmpty)
            // Once per member: a second room message arrives as the next one, not a duplicate.
            let again = [first, third].map { $0.events(named: "room-message") }
            _ = try await first.emitWithAck("to-room", "r", "second")
            for stream in again {
                #expect(try await stream.first(1, "the second room message").map(\.items) == [["second"]])
            }
        }
    }

    @Test("socketsJoin, fetchSockets and disconnectSockets reach every server's sockets")
    func socketOperationsAcrossServers() async throws {
        let (_, endpoints) = Self.bus(3)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            let namespaces = cluster.namespaces
            let ids = Set(cluster.sockets.compactMap(\.id))
            #expect(ids.count == 3)

            let described = try await namespaces[0].fetchSockets()
            #expect(Set(described.map(\.id)) == ids)
            #expect(described.allSatisfy { $0.rooms == [$0.id] })
            #expect(described.allSatisfy { $0.handshake["url"]?.stringValue?.hasPrefix("/socket.io/") == true })

            // One server's cluster messages reach the others in the order it made them, so a
            // request or broadcast it makes after `socketsJoin` sees the join everywhere.
            namespaces[1].all.socketsJoin("everyone")
            let joined = try await namespaces[1].to("everyone").fetchSockets()
            #expect(Set(joined.map(\.id)) == ids)

            let streams = cluster.sockets.map { $0.events(named: "room-message") }
            _ = try await cluster.sockets[1].emitWithAck("to-room", "everyone", "joined by another server")
            for stream in streams {
                #expect(try await stream.first(1, "a message to the joined room").map(\.items) == [["joined by another server"]])
            }

            namespaces[0].to("everyone").socketsLeave("everyone")
            #expect(try await namespaces[0].to("everyone").fetchSockets().isEmpty)

            let disconnects = cluster.sockets.map { $0.events(named: "disconnect") }
            namespaces[2].disconnectSockets()
            for stream in disconnects {
                _ = try await stream.first(1, "the disconnect")
            }
            #expect(try await namespaces[2].fetchSockets().isEmpty)
        }
    }

    @Test("fetchSockets describes sockets in socket.io's handshake shape: JavaScript's date, the address without its port, the host header")
    func handshakeShape() async throws {
        let (_, endpoints) = Self.bus(2)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            let described = try await cluster.namespaces[0].fetchSockets()
            #expect(described.count == 2)
            let ports = Set(cluster.servers.map { "127.0.0.1:\($0.port)" })
            let date = /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT\+0000 \(Coordinated Universal Time\)$/
            for socket in described {
                let handshake = socket.handshake
                #expect(handshake["address"] == .string("127.0.0.1"))
                let host = try #require(handshake["headers"]?["host"]?.stringValue)
                #expect(ports.contains(host))
                let time = try #require(handshake["time"]?.stringValue)
                #expect(time.wholeMatch(of: date) != nil, "time: \(time)")
                #expect(handshake["issued"]?.doubleValue != nil)
            }
        }
    }

    @Test("JavaScript's Date.toString() in UTC, as socket.io writes a handshake's time")
    func javaScriptDate() {
        #expect(SocketHandshake.javaScriptDate(Date(timeIntervalSince1970: 1_795_666_077)) == "Thu Nov 26 2026 04:07:57 GMT+0000 (Coordinated Universal Time)")
        #expect(SocketHandshake.javaScriptDate(Date(timeIntervalSince1970: 0)) == "Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)")
        #expect(SocketHandshake.javaScriptDate(Date(timeIntervalSince1970: 951_782_400)) == "Tue Feb 29 2000 00:00:00 GMT+0000 (Coordinated Universal Time)")
    }

    @Test("messages published as socket.io's emitter (uid \"emitter\") are delivered; the emitter is never counted or waited for")
    func emitterIsNotAServer() async throws {
        let (bus, endpoints) = Self.bus(2)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            let news = cluster.sockets[1].events(named: "news")
            bus.inject(ClusterMessage(uid: "emitter", namespace: "/", payload: .broadcast(
                packet: ClusterPacket(event: "news", items: ["from an emitter"], namespace: "/"), options: ClusterBroadcastOptions(), requestId: nil
            )))
            #expect(try await news.first(1, "the emitter's broadcast").map(\.items) == [["from an emitter"]])
            #expect(cluster.namespaces.allSatisfy { $0.serverCount == 2 })
            // Answered by the one other server, not held until the request timeout for the emitter.
            let described = try await withTimeout(4, "fetchSockets answered by the servers alone") {
                try await cluster.namespaces[0].fetchSockets()
            }
            #expect(described.count == 2)
        }
    }

    @Test("server-side emit reaches the other servers; with acks it gathers one answer each")
    func serverSideEmit() async throws {
        let (_, endpoints) = Self.bus(3)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            let namespaces = cluster.namespaces
            let heard = AsyncStream.makeStream(of: String.self)
            for (index, namespace) in namespaces.enumerated() {
                namespace.onServerSideEmit { event in
                    heard.continuation.yield("\(index):\(event.name)")
                    if event.expectsReply { event.reply(.string("answer from \(index)")) }
                }
            }
            namespaces[0].serverSideEmit("hello", "x")
            let got = try await heard.stream.first(2, "the other servers' handlers")
            #expect(Set(got) == ["1:hello", "2:hello"])

            let answers = try await namespaces[1].serverSideEmitWithAck("question", items: [])
            #expect(Set(answers) == ["answer from 0", "answer from 2"])
            #expect(namespaces.allSatisfy { $0.serverCount == 3 })
        }
    }

    @Test("a broadcast with acks gathers every client's ack across servers")
    func broadcastWithAcks() async throws {
        let (_, endpoints) = Self.bus(3)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            for (index, socket) in cluster.sockets.enumerated() {
                socket.on("question") { event in event.ack?.respond([.string("client \(index)")]) }
            }
            let answers = try await cluster.namespaces[2].all.emitWithAck("question", items: [], timeout: .seconds(10))
            #expect(Set(answers) == ["client 0", "client 1", "client 2"])

            // A client that does not answer: the call times out with the answers that came.
            cluster.sockets[0].off("question")
            await #expect(throws: BroadcastAckTimeout.self) {
                _ = try await cluster.namespaces[1].all.emitWithAck("question", items: [], timeout: .milliseconds(500))
            }
        }
    }

    @Test("a server that stops heartbeating is forgotten; its pending answers no longer hold requests")
    func silentServerIsForgotten() async throws {
        let (_, endpoints) = Self.bus(3)
        // The timeout is long enough that a live server is not forgotten while a loaded machine
        // delays its heartbeats, short enough to wait out.
        let options = ClusterOptions(heartbeatInterval: .milliseconds(100), heartbeatTimeout: .seconds(2), requestTimeout: .seconds(5))
        try await ClusterHarness.with(transports: endpoints, options: options) { cluster in
            endpoints[2].setReachable(false)
            let namespaces = cluster.namespaces
            try await withTimeout(10, "the others forget the silent server") {
                await namespaces[0].waitForServers(2)
                await namespaces[1].waitForServers(2)
            }
            let described = try await namespaces[0].fetchSockets()
            #expect(described.count == 2)
            // It comes back: its heartbeats make it known again.
            endpoints[2].setReachable(true)
            try await withTimeout(10, "the server is known again") { await namespaces[0].waitForServers(3) }
        }
    }

    @Test("a server that stops says goodbye and is forgotten at once; its own waits for servers end")
    func goodbye() async throws {
        let (_, endpoints) = Self.bus(3)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            let stopping = cluster.namespaces[2]
            let waiting = Task { await stopping.waitForServers(5) }  // five never come
            await cluster.servers[2].stop()
            try await withTimeout(5, "ADAPTER_CLOSE removes it") { await cluster.namespaces[0].waitForServers(2) }
            try await withTimeout(5, "the stopped server's wait ends") { await waiting.value }
        }
    }

    @Test("an outage shorter than the publish timeout: broadcasts are retried in order; longer: the awaiting caller is told")
    func outage() async throws {
        let (bus, endpoints) = Self.bus(2)
        // No heartbeat during the test (a starved run can take long): only the broadcasts are counted.
        let options = ClusterOptions(heartbeatInterval: .seconds(3600), heartbeatTimeout: .seconds(7200), publishTimeout: .seconds(2))
        try await ClusterHarness.with(transports: endpoints, options: options) { cluster in
            let receiver = cluster.sockets[1].events(named: "news")
            bus.setFailing(true)
            for index in 0..<5 { cluster.namespaces[0].emit("news", .number(Double(index))) }
            await #expect(throws: ClusterError.self) {
                _ = try await cluster.namespaces[0].all.emitAndConfirm("news", items: ["lost"])
            }
            // The five were older than the timeout too by now: failed, logged, counted.
            #expect(cluster.namespaces[0].failedClusterPublishCount == 5)
            bus.setFailing(false)
            let confirmed = try await cluster.namespaces[0].all.emitAndConfirm("news", items: ["after"])
            #expect(confirmed == 1)
            #expect(try await receiver.first(1, "the first message after the outage").map(\.items) == [["after"]])

            // A short outage: queued and retried in order.
            let ordered = cluster.sockets[1].events(named: "news")
            bus.setFailing(true)
            for index in 0..<5 { cluster.namespaces[0].emit("news", .number(Double(index))) }
            bus.setFailing(false)
            let got = try await ordered.first(5, "the retried broadcasts")
            #expect(got.map(\.items) == (0..<5).map { [.number(Double($0))] })
        }
    }

    @Test("a malformed cluster message is skipped; the server keeps serving")
    func malformedMessage() async throws {
        let (bus, endpoints) = Self.bus(2)
        try await ClusterHarness.with(transports: endpoints) { cluster in
            let news = cluster.sockets[1].events(named: "news")
            bus.inject(ClusterMessage(uid: "0123456789abcdef", namespace: "/", type: .broadcast, data: ["opts": "not options"]))
            bus.inject(ClusterMessage(uid: "0123456789abcdef", namespace: "/", type: .fetchSocketsResponse, data: nil))
            _ = try await cluster.sockets[0].emitWithAck("all", "still serving")
            #expect(try await news.first(1, "a broadcast after the malformed ones").map(\.items) == [["still serving"]])
        }
    }

    @Test("numbered messages: a copy is dropped, a gap is counted and logged as lost messages")
    func numbering() async throws {
        let (bus, endpoints) = Self.bus(2)
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
          try await ClusterHarness.with(transports: endpoints) { cluster in
            let news = cluster.sockets[1].events(named: "news")
            let newsOfServer0 = cluster.sockets[0].events(named: "news")
            func broadcast(_ text: String, _ sequence: UInt64) -> ClusterMessage {
                ClusterMessage(
                    uid: "0123456789abcdef", namespace: "/",
                    payload: .broadcast(packet: ClusterPacket(event: "news", items: [.string(text)], namespace: "/"), options: ClusterBroadcastOptions(), requestId: nil),
                    sequence: sequence
                )
            }
            bus.inject(broadcast("one", 1))
            bus.inject(broadcast("one again", 1))  // a retried publish, or a journal catch-up
            bus.inject(broadcast("three", 3))      // two never came
            bus.inject(ClusterMessage(uid: "0123456789abcdef", namespace: "/", payload: .broadcast(
                packet: ClusterPacket(event: "news", items: ["unnumbered"], namespace: "/"), options: ClusterBroadcastOptions(), requestId: nil
            )))  // socket.io's servers do not number theirs
            let fresh = try await news.first(3, "the fresh ones").map(\.items)
            #expect(fresh == [["one"], ["three"], ["unnumbered"]])
            // Server 0 got them too, on its own receiving task: its counts hold once its client has them.
            #expect(try await newsOfServer0.first(3, "server 0's fresh ones").map(\.items) == fresh)
            #expect(cluster.namespaces[1].missedClusterMessageCount == 1)
            #expect(cluster.namespaces[0].missedClusterMessageCount == 1)  // injected to every server
            // Both servers count into the test backend: one lost and one copy each.
            #expect(try metrics.expectCounter("socketio_cluster_missed_messages_total", [("namespace", "/")]).totalValue == 2)
            #expect(try metrics.expectCounter("socketio_cluster_duplicate_messages_total", [("namespace", "/")]).totalValue == 2)
          }
        }
    }

    /// A transport whose database is down.
    struct UnreachableTransport: ClusterTransport {
        struct Down: Error {}
        func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws { throw Down() }
        func publish(_ message: ClusterMessage) async throws { throw Down() }
        func shutdown() async {}
    }

    @Test("a server whose cluster cannot be joined does not start: clusterUnavailable, and it can be started again")
    func unreachableCluster() async throws {
        var configuration = SocketIOServer.Configuration()
        configuration.adapter = .cluster(UnreachableTransport())
        let server = SocketIOServer(configuration: configuration)
        _ = server.namespace("/")
        await #expect(throws: SocketIOServerError.self) { _ = try await server.start(port: 0) }
        // Back to idle: a second start is tried (and refused for the same reason), not "already started".
        do {
            _ = try await server.start(port: 0)
            Issue.record("started without its cluster")
        } catch {
            guard case .clusterUnavailable = error else {
                Issue.record("expected clusterUnavailable, got \(error)")
                return
            }
        }
    }

    @Test("after its cluster could not be joined, a confirmed emit fails at once: no publish loop runs to take it")
    func unjoinedClusterRefusesEmits() async throws {
        var configuration = SocketIOServer.Configuration()
        configuration.adapter = .cluster(UnreachableTransport())
        let server = SocketIOServer(configuration: configuration)
        let namespace = server.namespace("/")
        await #expect(throws: SocketIOServerError.self) { _ = try await server.start(port: 0) }
        let failure = try await withTimeout(5, "emitAndConfirm on an adapter that did not start") { () async -> ClusterError? in
            do throws(ClusterError) {
                _ = try await namespace.all.emitAndConfirm("news", items: [])
                return nil
            } catch {
                return error
            }
        }
        guard case .publishFailed(let reason) = failure else {
            Issue.record("expected publishFailed, got \(String(describing: failure))")
            return
        }
        #expect(reason.contains("did not start"))
    }
}
