import CoreMetrics
import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

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
                body: .init(byteBuffer: ByteBuffer(bytes: buffer))
            )
        }
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let quiet = Logger(label: "sio.metrics") { _ in SwiftLogNoOpLogHandler() }
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
