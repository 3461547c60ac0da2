import Harness
import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardCore

/// `sio bench --cluster`: broadcast throughput and cross-server latency with several servers in
/// this process joined by a cluster transport, beside one server with the in-process adapter.
///
/// Each server has one client of ours (WebSocket). Throughput: server 0 broadcasts `broadcasts`
/// events as fast as it can; the time runs until every client of every server has all of them.
/// Latency: server 0 broadcasts one probe at a time; each is timed until the client of the last
/// server has it (for one server: its own client).
struct ClusterBench: Sendable {
    var broadcasts = 10_000
    var probes = 500
    /// Connection state recovery on every server (with PostgreSQL: sessions and offsets kept
    /// in the cluster).
    var recovery = false

    struct Result: Sendable {
        var label: String
        var servers: Int
        var broadcasts: Throughput
        var probes: Latencies

        var json: JSONValue {
            [
                "servers": .number(Double(servers)),
                "broadcasts": .number(Double(broadcasts.count)),
                "broadcasts_per_second": .number(broadcasts.perSecond.rounded()),
                "latency_ms": probes.json(percentiles: [50, 99]),
            ]
        }
    }

    /// Runs the workload on `servers` servers; `transport` makes each one's cluster transport
    /// (`nil`: one server, in-process adapter).
    func run(label: String, servers count: Int, transport: (@Sendable () async throws -> any ClusterTransport)?) async throws -> Result {
        var servers: [RunningServer] = []
        var namespaces: [Namespace] = []
        var managers: [Manager] = []
        defer {
            let (servers, managers) = (servers, managers)
            Task {
                for manager in managers { await manager.close() }
                for server in servers { await server.stop() }
            }
        }
        for _ in 0..<count {
            var configuration = SocketIOServer.Configuration()
            if let transport { configuration.adapter = .cluster(try await transport()) }
            if recovery { configuration.recovery = .enabled() }
            let server = SocketIOServer(configuration: configuration, logger: Logger.disabled("sio.bench"))
            namespaces.append(server.namespace("/"))
            servers.append(try await server.start(host: "127.0.0.1", port: 0))
        }
        for namespace in namespaces {
            try await withDeadline(.seconds(15), onDeadline: { BenchError(description: "the servers did not find each other within 15 s") }) {
                await namespace.waitForServers(count)
            }
        }
        var sockets: [SocketIO.Socket] = []
        for server in servers {
            var configuration = Manager.Configuration()
            configuration.transports = [.websocket]
            let manager = try Manager(url: server.url, configuration: configuration)
            managers.append(manager)
            let socket = manager.socket(namespace: "/")
            try await socket.connect()
            sockets.append(socket)
        }
        let source = namespaces[0]

        // Throughput: every client gets every broadcast.
        let countdown = Countdown(broadcasts * count)
        let received = NIOLockedValueBox([Int](repeating: 0, count: count))
        for (index, socket) in sockets.enumerated() {
            socket.on("tick") { _ in
                received.withLockedValue { $0[index] += 1 }
                countdown.tick()
            }
        }
        let started = ContinuousClock.now
        for index in 0..<broadcasts { source.emit("tick", .number(Double(index))) }
        let ids = sockets.map(\.id)
        let shortfall = { @Sendable [namespaces, sockets] in
            let clients = zip(ids, sockets).map { id, socket in
                "\(socket.connected ? "connected" : "not connected"), \(socket.id == id ? "same id" : "new id")\(socket.recovered ? ", recovered" : "")"
            }
            return BenchError(description: "not every broadcast arrived within 120 s: the clients had \(received.withLockedValue { $0 }) of \(broadcasts) (\(clients)); "
                + "the servers missed \(namespaces.map(\.missedClusterMessageCount)) cluster messages, failed to publish \(namespaces.map(\.failedClusterPublishCount))")
        }
        try await withDeadline(.seconds(120), onDeadline: shortfall) {
            if let reason = await countdown.wait() { throw BenchError(description: reason) }
        }
        let seconds = (ContinuousClock.now - started).inSeconds

        // Latency: one probe at a time, to the last server's client.
        let probesSeen = sockets[count - 1].events(named: "probe")
        var iterator = probesSeen.makeAsyncIterator()
        let latencies = try await BenchRunner.roundTrips(probes, label: "\(label) probes") { index in
            source.emit("probe", .number(Double(index)))
            while let event = await iterator.next() {
                if event.items.first?.intValue == index { return }
            }
            throw BenchError(description: "the probe stream ended")
        }
        return Result(label: label, servers: count, broadcasts: Throughput(count: broadcasts, seconds: seconds),
                      probes: Latencies(milliseconds: latencies))
    }

    /// The results as a table: one column per configuration.
    static func table(_ results: [Result]) -> String {
        let rows: [(String, (Result) -> String)] = [
            ("servers", { "\($0.servers)" }),
            ("broadcasts", { "\($0.broadcasts.count)" }),
            ("throughput (every client has it)", { String(format: "%.0f broadcasts/s", $0.broadcasts.perSecond) }),
            ("latency p50", { Latencies.text($0.probes.percentile(50)) }),
            ("latency p99", { Latencies.text($0.probes.percentile(99)) }),
            ("latency max", { Latencies.text($0.probes.max) }),
        ]
        return MetricTable.render(
            title: "sio bench --cluster — one process, a client of ours per server",
            headers: ["metric"] + results.map(\.label),
            rows: rows.map { name, value in [name] + results.map(value) }
        )
    }
}
