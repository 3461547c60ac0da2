import CoreMetrics
import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle
import SwitchboardCore

/// `sio serve --metrics HOST:PORT`: the process's swift-metrics in Prometheus's text format at
/// `http://HOST:PORT/metrics` (swift-prometheus), on a port of its own.
struct MetricsEndpoint {
    let registry: PrometheusCollectorRegistry
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    /// The address it listens on.
    let host: String
    /// The port it listens on (the one picked for port 0).
    let port: Int

    /// Buckets for the round-trip timers: sub-millisecond on a LAN up to seconds on a bad link.
    static let roundTripBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]

    /// Bootstraps swift-metrics with a Prometheus registry (before any metric is made: call it
    /// before making the server) and starts serving it.
    static func start(_ address: String, logger: Logger) async throws -> MetricsEndpoint {
        let (host, port) = try parse(address)
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["socketio_ack_round_trip_seconds"] = roundTripBuckets
        MetricsSystem.bootstrap(factory)

        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            var buffer = [UInt8]()
            registry.emit(into: &buffer)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: withHelp(String(decoding: buffer, as: UTF8.self))))
            )
        }
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let quiet = Logger.disabled("sio.metrics")
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port)),
            onServerRunning: { channel in listening.yield(channel.localAddress?.port ?? port) },
            logger: quiet
        )
        let group = ServiceGroup(services: [app], logger: quiet)
        let task = Task {
            defer { listening.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            _ = await task.result
            throw CLIError("cannot serve metrics on \(address)")
        }
        return MetricsEndpoint(registry: registry, group: group, task: task, host: host, port: bound)
    }

    /// What each family measures, for Prometheus's `# HELP` lines (swift-metrics carries no help
    /// text, and swift-prometheus registers its metrics without any).
    static let help: [String: String] = [
        "engineio_sessions_open": "Engine.IO sessions open now.",
        "engineio_sessions_total": "Engine.IO sessions opened, by the transport they opened on.",
        "engineio_upgrades_total": "Engine.IO sessions upgraded from polling to WebSocket.",
        "engineio_received_bytes_total": "Engine.IO payload bytes received, by transport.",
        "engineio_sent_bytes_total": "Engine.IO payload bytes sent, by transport.",
        "socketio_sockets_connected": "Sockets connected to the namespace now.",
        "socketio_connections_total": "Sockets that joined the namespace.",
        "socketio_disconnections_total": "Sockets that left the namespace, by reason.",
        "socketio_recovery_attempts_total": "Connection state recovery attempts.",
        "socketio_recoveries_total": "Sessions recovered.",
        "socketio_events_received_total": "Events received from clients.",
        "socketio_events_sent_total": "Events sent to clients (a broadcast counts once per recipient).",
        "socketio_acks_answered_total": "Acknowledgements the application's handlers gave.",
        "socketio_ack_round_trip_seconds": "Time from the server's emitWithAck to the client's acknowledgement.",
        "socketio_cluster_servers": "Servers of the cluster, this one included.",
        "socketio_cluster_publish_failures_total": "Failed attempts to publish to the cluster.",
        "socketio_cluster_missed_messages_total": "Messages of other servers known lost (gaps in their numbering).",
        "socketio_cluster_duplicate_messages_total": "Messages of other servers received again and dropped.",
        "socketio_cluster_journal_delivered_total": "Messages read back from the cluster journal after a reconnection.",
    ]

    /// The text format with a `# HELP` line before each family's `# TYPE` line.
    static func withHelp(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 2048)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE ") {
                let name = line.dropFirst("# TYPE ".count).split(separator: " ").first.map(String.init) ?? ""
                let text = help[name] ?? name.replacingOccurrences(of: "_", with: " ") + "."
                out += "# HELP \(name) \(text)\n"
            }
            out += line
            out += "\n"
        }
        if out.hasSuffix("\n\n") { out.removeLast() }
        return out
    }

    /// `HOST:PORT`, or `:PORT` / `PORT` for 127.0.0.1.
    static func parse(_ address: String) throws -> (host: String, port: Int) {
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        let host = parts.count > 1 ? parts.dropLast().joined(separator: ":") : ""
        guard let last = parts.last, let port = Int(last), (0...65535).contains(port) else {
            throw CLIError("--metrics wants HOST:PORT (like 127.0.0.1:9464), not \(address)")
        }
        return (host.isEmpty ? "127.0.0.1" : host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
