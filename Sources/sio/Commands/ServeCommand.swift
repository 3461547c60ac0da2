import SwitchboardCore
import ArgumentParser
import Foundation
import Harness
import Logging
import SocketIOServer
import SwitchboardDemo

/// `sio serve`: the embedded server with the demo namespaces.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the embedded Socket.IO server with the demo namespaces (/, /chat, /ticker).",
        discussion: """
        The demo server's contract (the README's table; every event acks when asked):

        \(DemoApplication.contractText)

        SIGINT or SIGTERM stops the server: clients are disconnected, the exit status is 0.
        """
    )

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on (0 picks a free one).")
    var port = 3000

    @Option(name: .long, help: "Also serve raw Engine.IO at this path, echoing every message (e.g. /engine.io/, for engine.io clients and the official engine.io-protocol suite).")
    var engineEcho: String?

    @Flag(name: .long, inversion: .prefixedNo, help: "Run each connection's handlers on its event loop, WebSocket and long-polling (the default: fewest context switches; handlers must not compute for long); --no-handlers-on-event-loop runs them on the concurrency pool.")
    var handlersOnEventLoop = true

    @Option(name: .long, help: "Event-loop threads (default: one per core). 1 makes the server single-threaded like a Node process: the fastest for several servers on one machine, as in a cluster with a process per core.")
    var eventLoops: Int?

    @Option(name: .long, help: "Serve the server's metrics in Prometheus's text format at http://HOST:PORT/metrics (e.g. 127.0.0.1:9464).")
    var metrics: String?

    @OptionGroup(title: "Engine.IO")
    var engine: EngineIOServeOptions

    @OptionGroup(title: "Cluster")
    var cluster: ClusterServeOptions

    func validate() throws {
        if let eventLoops, eventLoops < 1 { throw ValidationError("--event-loops must be at least 1") }
        // Each event loop is a thread with about 3 descriptors; NIO traps when it cannot make one.
        let most = min(1_024, (DescriptorBudget.shared.room ?? Int.max) / 3)
        if let eventLoops, eventLoops > most {
            throw ValidationError("--event-loops \(eventLoops) is more than this process can run: at most \(most) here (each loop is a thread with about 3 file descriptors)")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
    }

    func run() async throws {
        try await reportingErrors {
            var logger = Logger(label: "sio.serve") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .info
            // Before the server exists: its metrics are made with the bootstrapped backend.
            var metricsEndpoint: MetricsEndpoint?
            if let metrics {
                let endpoint = try await MetricsEndpoint.start(metrics, logger: logger)
                StandardOutput.errorLine("sio serve: metrics on http://\(endpoint.host):\(endpoint.port)/metrics")
                metricsEndpoint = endpoint
            }
            var configuration = DemoApplication.configuration
            engine.apply(to: &configuration)
            configuration.handlersOnEventLoop = handlersOnEventLoop
            var clusterTransport: (any ClusterTransport)?
            if let cluster = cluster.cluster {
                let transport: any ClusterTransport
                do {
                    transport = try await ClusterTransportChoice.make(cluster, allowLocal: false, logger: logger).make()
                } catch let error as CLIError {
                    throw error
                } catch {
                    throw CLIError("cannot join the cluster at \(Self.redacted(cluster)): \(error)")
                }
                configuration.adapter = .cluster(transport, self.cluster.options)
                clusterTransport = transport
            }
            let server = SocketIOServer(configuration: configuration, logger: logger)
            let ticker = DemoApplication.install(on: server, logger: logger)
            if let engineEcho {
                guard engineEcho.hasPrefix("/"), engineEcho != configuration.path, engineEcho + "/" != configuration.path else {
                    throw CLIError("--engine-echo needs a path of its own, like /engine.io/ (not \(configuration.path))")
                }
                server.engineIO(at: engineEcho) { socket in
                    socket.onMessage { message in
                        switch message {
                        case .text(let text): socket.send(text)
                        case .binary(let data): socket.send(data)
                        }
                    }
                }
            }
            defer { ticker.cancel() }
            do {
                let running = try await server.start(host: host, port: port)
                if let cluster = cluster.cluster, clusterTransport != nil {
                    StandardOutput.errorLine("sio serve: joined the cluster at \(Self.redacted(cluster)) (channels socket.io#<namespace>)")
                }
                StandardOutput.errorLine("sio serve: listening on \(running.url.absoluteString)")
                try await withTaskCancellationHandler {
                    try await ServeCommand.waitForTermination()
                } onCancel: {}
                await ServeCommand.stop(running, within: .milliseconds(900))
                await metricsEndpoint?.stop()
            } catch let error as SocketIOServerError {
                throw CLIError("cannot serve on \(host):\(port): \(error)")
            }
        }
    }

    /// Stops the server, returning after `limit` at the latest so that the process exits within
    /// a second of the signal. Every session has been sent its close by then; what can outlast
    /// the limit is the graceful shutdown waiting on a client that races the stop with a
    /// reconnection (measured: up to ~1.4 s on a loaded machine), which the exit ends anyway.
    static func stop(_ running: RunningServer, within limit: Duration) async {
        // At the limit the stop is cancelled and left behind: the process is exiting.
        try? await withDeadline(limit, onDeadline: { CancellationError() }) { await running.stop() }
    }

    /// The URL without its password, for printing.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }

    /// Waits for SIGINT or SIGTERM.
    static func waitForTermination() async throws {
        let signals = [SIGINT, SIGTERM]
        for signal in signals { Foundation.signal(signal, SIG_IGN) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = NSLock()
            nonisolated(unsafe) var done = false
            let sources = signals.map { DispatchSource.makeSignalSource(signal: $0, queue: .global()) }
            for source in sources {
                source.setEventHandler {
                    resumed.lock()
                    defer { resumed.unlock() }
                    guard !done else { return }
                    done = true
                    for other in sources { other.cancel() }
                    continuation.resume()
                }
                source.resume()
            }
        }
    }
}
