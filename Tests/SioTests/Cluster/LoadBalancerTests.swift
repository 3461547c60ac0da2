import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three `sio serve --cluster` processes behind a real HAProxy (Debian's, configured as
/// socket.io's documentation recommends: `scripts/haproxy`), clients of ours through it:
/// long-polling stays on one server because the client sends HAProxy's cookie back, upgrades
/// pass through, and a room spanning the servers gets every message. One test at a time: each
/// runs four processes and up to 30 clients, which beside a parallel suite on two cores would
/// starve the other tests' connects.
@Suite("Cluster: sio serve processes behind HAProxy", .serialized)
struct LoadBalancerTests {
    /// HAProxy in front of `cluster`'s servers, or `nil` after a loud skip line (a failure with
    /// `SWITCHBOARD_REQUIRE_PEERS=1`) when it is not installed.
    static func balancer(for cluster: ServeCluster, test: String) async throws -> (BackgroundChild, URL)? {
        let script = SioBinary.packageRoot.appendingPathComponent("scripts/haproxy").path
        let installed = FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy")
            || FileManager.default.isExecutableFile(atPath: "/usr/bin/haproxy")
        guard installed else {
            if ProcessInfo.processInfo.environment["SWITCHBOARD_REQUIRE_PEERS"] == "1" {
                throw ChildProcessError("haproxy is not installed (scripts/haproxy install; scripts/test does it)")
            }
            FileHandle.standardError.write(Data("⚠️ SKIPPED \(test): haproxy is not installed (scripts/haproxy install; scripts/test does it)\n".utf8))
            return nil
        }
        let backends = cluster.urls.map { "\($0.host ?? "127.0.0.1"):\($0.port ?? 0)" }
        let process = try BackgroundChild("/bin/bash", [script, "run", "0"] + backends)
        do {
            let ready = try await process.line(containing: "haproxy: listening on", within: 30)
            return (process, try URL(string: String(ready.split(separator: " ").last ?? "")).orThrow("no URL in \(ready)"))
        } catch {
            process.signal(SIGKILL)
            throw error
        }
    }

    /// Three `sio serve --cluster` processes and HAProxy in front of them for `body` (given the
    /// cluster and the balancer's URL); skipped loudly when `sio`, PostgreSQL or HAProxy is missing.
    static func withBalancedCluster(_ test: String, _ body: (ServeCluster, URL) async throws -> Void) async throws {
        try await withBalancedCluster(test) { cluster, url, _, _ in try await body(cluster, url) }
    }

    /// As ``withBalancedCluster(_:_:)-…``, also giving `body` the `sio` binary and the database.
    static func withBalancedCluster(_ test: String, _ body: (ServeCluster, URL, String, PostgresDatabase) async throws -> Void) async throws {
        guard let sio = SioBinary.orSkip(test), let server = try PostgresDatabase.serverURL(for: test) else { return }
        try await ServeCluster.with(3, sio: sio, on: server) { cluster, database in
            guard let (balancer, url) = try await balancer(for: cluster, test: test) else { return }
            defer {
                balancer.signal(SIGTERM)
                balancer.remove()
            }
            try await body(cluster, url, sio, database)
        }
    }

    /// `count` clients connected through the balancer at `url`: WebSocket-only where
    /// `webSocketOnly(index)`, polling then upgrade elsewhere.
    static func clients(_ count: Int, through url: URL, reconnecting: Bool,
                        webSocketOnly: (Int) -> Bool) async throws -> ([Manager], [SocketIO.Socket]) {
        var managers: [Manager] = []
        var sockets: [SocketIO.Socket] = []
        for index in 0..<count {
            var configuration = Manager.Configuration()
            configuration.transports = webSocketOnly(index) ? [.websocket] : [.polling, .websocket]
            configuration.reconnection = reconnecting
            let manager = try Manager(url: url, configuration: configuration)
            let socket = manager.socket()
            try await withTimeout(30, "client \(index) connects through HAProxy") { try await socket.connect() }
            managers.append(manager)
            sockets.append(socket)
        }
        return (managers, sockets)
    }

    /// Waits until every client has `total` room messages (`[room, number]`) and checks they are
    /// `0 ..< total` once and in order. A client short of them fails with what it got (how
    /// many, the first missing and doubled numbers, whether it recovered) and the servers'
    /// warnings, so a shortfall says where to look.
    static func expectEveryMessage(
        _ total: Int,
        streams: [AsyncStream<SocketEvent>],
        sockets: [SocketIO.Socket],
        managers: [Manager],
        histories: [ClientHistory],
        servers: [BackgroundChild],
        publishers: [Range<Int>]? = nil
    ) async throws {
        // One server publishes each range, and a server's messages reach every client in the
        // order it published them. Messages of different servers reach a client in the order
        // its own server heard them: one that is behind on another server's stream (PostgreSQL
        // notifications not read yet, beside two busy loops) can deliver its own newer message
        // first, as any cluster without a global sequencer would.
        let ranges = publishers ?? [0 ..< total]
        var reported = false
        for (index, stream) in streams.enumerated() {
            let got = NIOLockedValueBox<[[JSONValue]]>([])
            // What this client got, what it went through, and each server's last lines (joins,
            // drains, recoveries, warnings), for the first client that misses or reorders.
            let report = { (problem: String) in
                let numbers = got.withLockedValue { $0 }.compactMap { $0.last?.intValue }
                let missing = Set(0 ..< total).subtracting(numbers).sorted()
                var seen = Set<Int>()
                let twice = numbers.filter { !seen.insert($0).inserted }
                let reordered = zip(numbers, numbers.dropFirst()).filter { $0.1 < $0.0 }.map { "\($0.1) after \($0.0)" }
                let logs = servers.enumerated().flatMap { server, process in
                    process.stderr.split(separator: "\n").suffix(40).map { "server \(server): \($0)" }
                }
                Issue.record("""
                    client \(index) \(problem): has \(numbers.count) of \(total) (recovered: \(sockets[index].recovered), id \(sockets[index].id ?? "none")); \
                    missing \(missing.count): \(missing.prefix(20)); twice: \(twice.prefix(20)); out of order: \(reordered.prefix(10))
                    \(managers[index].diagnostics.joined(separator: "\n"))
                    history: \(histories[index].lines.joined(separator: "; "))
                    \(logs.joined(separator: "\n"))
                    """)
            }
            do {
                try await withTimeout(90, "client \(index) gets the stream") {
                    for await event in stream {
                        let count = got.withLockedValue { $0.append(event.items); return $0.count }
                        if count == total { return }
                    }
                }
            } catch {
                report("timed out")
                throw error
            }
            let numbers = got.withLockedValue { $0 }.compactMap { $0.count == 2 && $0.first == "stream" ? $0.last?.intValue : nil }
            let onceEach = numbers.count == total && Set(numbers) == Set(0 ..< total)
            let inOrder = ranges.allSatisfy { range in
                let published = numbers.filter(range.contains)
                return published == Array(range)
            }
            if !(onceEach && inOrder), !reported {
                reported = true
                report("not every message once, each server's in order")
            }
            #expect(onceEach && inOrder, "client \(index): every message once, each publishing server's in order")
        }
    }

    @Test("30 clients through HAProxy (half WebSocket only, half polling then upgrade): sticky, upgraded, one room across the servers")
    func thirtyClientsThroughTheBalancer() async throws {
        try await Self.withBalancedCluster("thirtyClients") { cluster, url in
            let (managers, sockets) = try await Self.clients(30, through: url, reconnecting: false) { $0 < 15 }
            for (index, socket) in sockets.enumerated() {
                _ = try await withTimeout(30, "client \(index) joins") { try await socket.emitWithAck("join", "everyone") }
            }
            // The cluster sees all 30 in the room (whichever server each one landed on).
            let members = try await cluster.sockets[0].emitWithAck("sockets", "everyone")
            let ids = Set(members.first?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } ?? [])
            #expect(ids == Set(sockets.compactMap(\.id)), "\(members)")
            // The polling ones upgraded through the balancer (their upgrade carried the cookie).
            for (index, (manager, socket)) in zip(managers, sockets).enumerated().dropFirst(15) {
                try await withTimeout(30, "client \(index) upgrades") {
                    while manager.transport != .websocket { _ = try await socket.emitWithAck("ack", "wait") }
                }
            }
            // A message to the room from one client reaches all 30, once each.
            let streams = sockets.map { $0.events(named: "room-message") }
            let count = try await sockets[7].emitWithAck("room-message", "everyone", "hello")
            #expect(count.first?.intValue != nil, "\(count)")
            for (index, stream) in streams.enumerated() {
                let received = try await stream.first(1, "client \(index) gets the room message")
                #expect(received.map(\.items) == [[.string("everyone"), .string("hello")]])
            }
            for manager in managers { await manager.close() }
        }
    }

    @Test("a server stopped with SIGTERM: its clients reconnect through the balancer to the other two")
    func clientsOfAStoppedServerComeBackElsewhere() async throws {
        try await Self.withBalancedCluster("stoppedServer") { cluster, url in
            let (managers, sockets) = try await Self.clients(12, through: url, reconnecting: true) { $0.isMultiple(of: 2) }
            let before = sockets.map(\.id)
            // Round robin put some of them on server 0; it stops the way a deploy stops it.
            cluster.processes[0].signal(SIGTERM)
            #expect(try await withTimeout(30, "server 0 exits") { await cluster.processes[0].exit() } == 0)
            // Every client answers again: those of server 0 reconnected (the balancer's health
            // check took server 0 out) and recovered their sessions, though none had been sent an
            // event yet (no offset: their rooms' position in the store says where to replay from).
            for (index, socket) in sockets.enumerated() {
                try await withTimeout(60, "client \(index) answers after the stop") {
                    while true {
                        do {
                            _ = try await socket.emitWithAck("ack", "back", timeout: .seconds(5))
                            return
                        } catch {
                            continue  // sent into the closing connection: reconnecting, then sent again
                        }
                    }
                }
            }
            #expect(sockets.map(\.id) == before, "same socket ids")
            let recovered = sockets.filter(\.recovered).count
            #expect(recovered > 0 && recovered < 12, "server 0's clients (and only they) recovered: \(recovered)")
            let members = try await cluster.sockets[1].emitWithAck("sockets")
            let ids = Set(members.first?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } ?? [])
            #expect(Set(sockets.compactMap(\.id)).isSubset(of: ids), "all 12 on servers 1 and 2: \(members)")
            for manager in managers { await manager.close() }
        }
    }

    @Test(
        "a server killed (SIGKILL) or stopped (SIGTERM): its clients recover on the other two through the balancer, same ids and rooms, every room message once and in order",
        arguments: [SIGKILL, SIGTERM]
    )
    func clientsOfALostServerRecoverElsewhere(signal: Int32) async throws {
        try await Self.withBalancedCluster("lostServerRecovery") { cluster, url in
            let (managers, sockets) = try await Self.clients(30, through: url, reconnecting: true) { $0 < 15 }
            for (index, socket) in sockets.enumerated() {
                _ = try await withTimeout(30, "client \(index) joins") { try await socket.emitWithAck("join", "stream") }
            }
            let ids = sockets.map(\.id)
            let streams = sockets.map { $0.events(named: "room-message") }
            let histories = zip(managers, sockets).map { ClientHistory(manager: $0, socket: $1) }
            defer { for history in histories { history.stop() } }
            // A stream to the room from a client of server 1; server 0 goes a fifth of the way in.
            let total = 1_000
            let publisher = cluster.sockets[1]
            for number in 0 ..< total {
                if number == total / 5 { cluster.processes[0].signal(signal) }
                _ = try await withTimeout(30, "message \(number) published") {
                    try await publisher.emitWithAck("room-message", "stream", .number(Double(number)))
                }
            }
            try await Self.expectEveryMessage(
                total, streams: streams, sockets: sockets, managers: managers, histories: histories, servers: cluster.processes
            )
            // Server 0's clients came back elsewhere as the same sessions, recovered.
            #expect(sockets.map(\.id) == ids, "same socket ids")
            let recovered = sockets.filter(\.recovered).count
            #expect(recovered > 0 && recovered < 30, "server 0's clients (and only they) recovered: \(recovered)")
            // The cluster's answer once server 0 is forgotten (until then the request times out).
            let members = try await withTimeout(60, "the cluster answers without server 0") {
                while true {
                    let answer = try await cluster.sockets[1].emitWithAck("sockets", "stream")
                    if answer.first?.objectValue?["error"] == nil { return answer }
                }
            }
            let inRoom = Set(members.first?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } ?? [])
            #expect(Set(sockets.compactMap(\.id)).isSubset(of: inRoom), "all 30 still in the room: \(members)")
            for manager in managers { await manager.close() }
        }
    }

    @Test("a rolling restart (each server in turn: SIGTERM, exit, start again on its port): every client keeps its session, every room message once, each publishing server's in order")
    func rollingRestart() async throws {
        try await Self.withBalancedCluster("rollingRestart") { cluster, url, sio, database in
            let (managers, sockets) = try await Self.clients(30, through: url, reconnecting: true) { $0 < 15 }
            for (index, socket) in sockets.enumerated() {
                _ = try await withTimeout(30, "client \(index) joins") { try await socket.emitWithAck("join", "stream") }
            }
            let ids = sockets.map(\.id)
            let streams = sockets.map { $0.events(named: "room-message") }
            let histories = zip(managers, sockets).map { ClientHistory(manager: $0, socket: $1) }
            defer { for history in histories { history.stop() } }
            let (environment, _) = try ChildProcess.isolatedEnvironment()
            var processes = cluster.processes
            var restarted: [BackgroundChild] = []
            defer { for process in restarted { process.signal(SIGKILL) } }
            let perPhase = 200
            var number = 0
            for phase in 0 ..< 3 {
                // Published through a server that stays up during this phase.
                var configuration = Manager.Configuration()
                configuration.transports = [.websocket]
                configuration.reconnection = false
                let publisherManager = try Manager(url: cluster.urls[(phase + 1) % 3], configuration: configuration)
                let publisher = publisherManager.socket()
                try await withTimeout(30, "publisher of phase \(phase) connects") { try await publisher.connect() }
                for step in 0 ..< perPhase {
                    if step == perPhase / 5 { processes[phase].signal(SIGTERM) }
                    let current = number
                    _ = try await withTimeout(30, "message \(current) published") {
                        try await publisher.emitWithAck("room-message", "stream", .number(Double(current)))
                    }
                    number += 1
                }
                await publisherManager.close()
                let stopping = processes[phase]
                #expect(try await withTimeout(30, "server \(phase) exits") { await stopping.exit() } == 0)
                let port = cluster.urls[phase].port ?? 0
                let again = try BackgroundChild(sio, ["serve", "--port", "\(port)", "--cluster", database.url], environment: environment)
                restarted.append(again)
                processes[phase] = again
                _ = try await again.line(containing: "sio serve: listening on", within: 60)
                try await again.lines(containing: "cluster server joined", count: 2, within: 30)
            }
            try await Self.expectEveryMessage(
                number, streams: streams, sockets: sockets, managers: managers, histories: histories, servers: cluster.processes + restarted,
                publishers: (0 ..< 3).map { $0 * perPhase ..< ($0 + 1) * perPhase }
            )
            #expect(sockets.map(\.id) == ids, "same socket ids after three restarts")
            for manager in managers { await manager.close() }
        }
    }

    @Test("without the cookie, long-polling through the round robin loses its session")
    func pollingWithoutTheCookieFails() async throws {
        try await Self.withBalancedCluster("pollingWithoutCookie") { cluster, url in
            var configuration = Manager.Configuration()
            configuration.transports = [.polling]
            configuration.reconnection = false
            configuration.storesCookies = false
            let manager = try Manager(url: url, configuration: configuration)
            // The handshake reaches one server, the next request another, which knows no such
            // session (HTTP 400).
            await #expect(throws: (any Error).self) {
                try await withTimeout(30, "connect without the cookie") { try await manager.socket().connect() }
            }
            await manager.close()
        }
    }
}

/// What one client went through during a test (its manager's events and its socket's status
/// changes, at wall-clock times), for the report when a client misses
/// messages.
final class ClientHistory: Sendable {
    private let recorded = NIOLockedValueBox<[String]>([])
    private let watchers: [Task<Void, Never>]

    init(manager: Manager, socket: SocketIO.Socket) {
        let recorded = recorded
        // Wall-clock times, to read beside the servers' logs.
        let note: @Sendable (String) -> Void = { line in
            let time = Date().formatted(.iso8601.time(includingFractionalSeconds: true))
            recorded.withLockedValue { $0.append("\(time) \(line)") }
        }
        let events = manager.events
        let statuses = socket.statusChanges
        watchers = [
            Task {
                for await event in events where event != .ping { note("manager \(event)") }
            },
            Task {
                for await status in statuses { note("socket \(status), id \(socket.id ?? "none"), recovered \(socket.recovered)") }
            },
        ]
    }

    /// The lines so far.
    var lines: [String] { recorded.withLockedValue { $0 } }

    func stop() {
        for watcher in watchers { watcher.cancel() }
    }
}
