import SwitchboardCore
import ArgumentParser
import Foundation
import Logging
import SocketIO
import SocketIOServer
import SwitchboardDemo

/// `sio bench [URL]`: echo throughput and ack round-trip latency, our client and python-socketio's.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure echo throughput (events/s) and ack round-trip latency (p50/p90/p99/max).",
        discussion: """
        Without a URL the embedded server runs in this process. The server must answer `echo` by \
        emitting `echo` back with the same arguments and `ack` by acknowledging with them, as \
        `sio serve` and the test peers do. When python-socketio is installed (.venv, as scripts/test \
        makes it), its client runs the same workload against the same server for comparison.

        With --failover the same workload runs through a platform `Connection` of each kind \
        instead: Socket.IO, plain WebSocket (`/ws`), and the failover channel pinned to each \
        transport (`/ws?channel=` and the `/channel` namespace) — what plain WebSocket saves, and \
        what the channel's numbering and acknowledgements cost. The server must serve the demo \
        application (`sio serve` does).
        """
    )

    @Argument(help: "The server URL; the embedded server when omitted.")
    var url: String?

    @Option(name: .long, help: "Echo events to send in total.")
    var events: Int = 20_000

    @Option(name: .long, help: "Concurrent connections.")
    var clients: Int = 1

    @Option(name: .long, help: "Sequential ack round trips to time.")
    var acks: Int = 2_000

    @Option(name: .long, help: "websocket, polling, or auto (polling first, then upgrade).")
    var transport: TransportChoice = .websocket

    @Option(name: .long, help: "The namespace to use, / by default; or give it as the URL's path.")
    var namespace: String?

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    @Flag(name: .long, help: "Compare connection kinds: Socket.IO, plain WebSocket, the failover channel on each.")
    var failover = false

    @Option(name: .long, help: "Cluster broadcast benchmark: `local` (servers joined in memory) or a postgres:// URL; 1 server with the in-process adapter, then 2 and 3 servers.")
    var cluster: String?

    @Option(name: .long, help: "Recovery across a cluster: --clients clients through URL (a load balancer in front of sio serve --cluster processes) join a room, then this pid (one of the servers) is killed; reports how long its clients take to be back, recovered, on the others.")
    var recoveryKill: Int32?

    @Option(name: .long, help: "A cluster from outside: a client on URL emits the demo's room-message to a room a client on this second server joined (sio serve --cluster processes); --broadcasts pipelined, then --probes one at a time.")
    var across: String?

    @OptionGroup(title: "Cluster")
    var clusterOptions: ClusterBenchOptions

    @OptionGroup(title: "Churn")
    var churnOptions: ChurnBenchOptions

    @OptionGroup(title: "The client's threads")
    var threads: ClientThreadOptions

    @OptionGroup(title: "python-socketio")
    var comparison: PythonComparisonOptions

    func run() async throws {
        try await reportingErrors {
            guard events > 0, clients > 0, acks >= 0 else { throw CLIError("--events and --clients must be positive") }
            if let cluster {
                try await runCluster(cluster)
                return
            }
            if let recoveryKill {
                guard let url, let parsed = URL(string: url), parsed.host != nil else { throw CLIError("--recovery-kill needs the balancer's URL") }
                let result: RecoveryBench.Result
                do {
                    result = try await RecoveryBench(url: parsed, clients: clients, pid: recoveryKill).run()
                } catch {
                    throw CLIError("\(error)")
                }
                StandardOutput.line(json ? result.json.jsonString : result.table)
                return
            }
            if let across {
                try await runAcross(across)
                return
            }
            try checkDescriptors()
            var embedded: RunningServer?
            let serverURL: URL
            if let url {
                guard let parsed = URL(string: url), parsed.host != nil else { throw CLIError("invalid URL: \(url)") }
                serverURL = parsed
            } else {
                let server = SocketIOServer(configuration: SocketIOServer.Configuration(), logger: Logger.disabled("sio.bench"))
                DemoApplication.install(on: server, logger: Logger.disabled("sio.bench")).cancel()
                do {
                    let running = try await server.start(host: "127.0.0.1", port: 0)
                    embedded = running
                    serverURL = running.url
                } catch {
                    throw CLIError("the embedded server did not start: \(error)")
                }
            }
            if failover {
                try await runConnections(serverURL, embedded: embedded)
                return
            }
            if let churn = churnOptions.churn {
                try await runChurn(churn, serverURL: serverURL, embedded: embedded)
                return
            }
            let joined: String
            do {
                joined = try SocketNamespace.resolve(url: serverURL, namespace: namespace)
            } catch {
                throw CLIError("\(error)")
            }
            var runner = BenchRunner(url: serverURL, namespace: joined, auth: .none,
                                     transports: transport.transports, clients: clients, events: events, acks: acks)
            runner.usageScope = usageScope
            runner.inlineHandlers = threads.inlineHandlers
            runner.onEventLoop = threads.onEventLoop
            var columns: [(String, BenchResult)] = []
            do {
                columns.append(("switchboard", try await runner.run()))
                if !comparison.noPython, let python = PythonBench.interpreter(comparison.python) {
                    let kind: EngineTransportKind = transport == .polling ? .polling : .websocket
                    columns.append(("python-socketio", try await PythonBench.run(
                        python: python, url: serverURL, events: events, acks: acks, transport: kind)))
                }
            } catch {
                await embedded?.stop()
                throw CLIError("\(error)")
            }
            await embedded?.stop()
            report(columns, target: "\(serverURL.absoluteString), \(transport.rawValue)")
        }
    }

    /// `--cluster`: the in-process adapter, then 2 and 3 servers on the cluster transport.
    private func runCluster(_ target: String) async throws {
        guard clusterOptions.broadcasts > 0, clusterOptions.probes > 0 else { throw CLIError("--broadcasts and --probes must be positive") }
        let bench = ClusterBench(broadcasts: clusterOptions.broadcasts, probes: clusterOptions.probes, recovery: clusterOptions.recovery)
        var results: [ClusterBench.Result] = []
        do {
            let suffix = clusterOptions.recovery ? ", recovery" : ""
            results.append(try await bench.run(label: "in-process adapter\(suffix)", servers: 1, transport: nil))
            for servers in [2, 3] {
                let transport = try ClusterTransportChoice.make(target)
                results.append(try await bench.run(label: "\(servers) servers, \(transport.name)\(suffix)", servers: servers, transport: transport.make))
            }
        } catch {
            throw CLIError("\(error)")
        }
        if json {
            StandardOutput.line(JSONValue.object(JSONObject(results.map { ($0.label, $0.json) })).jsonString)
        } else {
            StandardOutput.line(ClusterBench.table(results))
        }
    }

    /// `--across URL2`: one client on each of two servers of a cluster, from outside.
    private func runAcross(_ other: String) async throws {
        guard let url, let parsed = URL(string: url), parsed.host != nil,
              let otherURL = URL(string: other), otherURL.host != nil else { throw CLIError("--across needs two server URLs: sio bench URL --across URL2") }
        guard clusterOptions.broadcasts > 0, clusterOptions.probes > 0 else { throw CLIError("--broadcasts and --probes must be positive") }
        let bench = AcrossBench(url: parsed, other: otherURL, broadcasts: clusterOptions.broadcasts, probes: clusterOptions.probes, inlineHandlers: threads.inlineHandlers)
        let result: AcrossBench.Result
        do {
            result = try await bench.run()
        } catch {
            throw CLIError("\(error)")
        }
        StandardOutput.line(json ? result.json.jsonString : bench.table(result))
    }

    /// Refuses up front a run that needs more file descriptors than the process may open:
    /// one per client, two with the embedded server (its end of each connection).
    private func checkDescriptors() throws {
        let budget = DescriptorBudget.shared
        guard let room = budget.room, let limit = budget.limit else { return }
        let perClient = url == nil ? 2 : 1
        let fit = room / perClient
        guard clients > fit else { return }
        // Saturating: `--clients` is whatever the user typed, up to Int.max.
        let needed = clients.multipliedReportingOverflow(by: perClient)
        let descriptors = needed.overflow ? Int.max : needed.partialValue
        let raised = (limit - room).addingReportingOverflow(descriptors)
        throw CLIError(
            "\(clients) clients need about \(descriptors) file descriptors (\(perClient) each\(perClient == 2 ? ": the client's and the embedded server's end" : "")), " +
            "but only \(room) are free below this process's limit of \(limit) (ulimit -n) with \(budget.reserve) kept in reserve: " +
            "at most \(fit) clients fit. Raise the limit (ulimit -n \(raised.overflow ? Int.max : raised.partialValue)) or use fewer clients."
        )
    }

    /// `--churn`: rounds of clients coming and going, a row per round.
    private func runChurn(_ rounds: Int, serverURL: URL, embedded: RunningServer?) async throws {
        guard rounds > 0 else {
            await embedded?.stop()
            throw CLIError("--churn must be positive")
        }
        let joined: String
        do {
            joined = try SocketNamespace.resolve(url: serverURL, namespace: namespace)
        } catch {
            await embedded?.stop()
            throw CLIError("\(error)")
        }
        var bench = ChurnBench(
            url: serverURL, namespace: joined, clients: clients, rounds: rounds,
            hold: churnOptions.hold, serverPID: churnOptions.serverPid
        )
        bench.transports = transport.transports
        bench.kind = churnOptions.churnKind
        let results: [ChurnBench.Round]
        do {
            results = try await bench.run()
        } catch {
            await embedded?.stop()
            throw CLIError("\(error)")
        }
        await embedded?.stop()
        if json {
            StandardOutput.line(ChurnBench.json(results).jsonString)
        } else {
            let target = (url == nil ? "the embedded server " : "") + serverURL.absoluteString
            let kind = churnOptions.churnKind.map { "\($0.rawValue) connection" } ?? "Socket.IO (\(transport.rawValue))"
            StandardOutput.line(ChurnBench.table(target: target, clients: clients, hold: bench.hold, kind: kind, results))
        }
        if let short = results.first(where: { $0.connected < clients }) {
            throw CLIError("round \(short.index): \(short.connected) of \(clients) clients connected and got their ack; the first failure: \(short.firstFailure ?? "unknown")")
        }
    }

    /// `--failover`: one column per connection kind.
    private func runConnections(_ serverURL: URL, embedded: RunningServer?) async throws {
        var bench = ConnectionBench(url: serverURL, events: events, acks: acks)
        bench.usageScope = usageScope
        var columns: [(String, BenchResult)] = []
        do {
            for kind in ConnectionBench.Kind.allCases {
                columns.append((kind.rawValue, try await bench.run(kind)))
            }
        } catch {
            await embedded?.stop()
            throw CLIError("\(error)")
        }
        await embedded?.stop()
        report(columns, target: "\(serverURL.absoluteString), through Connection")
    }

    /// What the usage figures cover: the embedded server shares the process and its event loops
    /// with the client (run against `sio serve` in another process to see the client alone).
    private var usageScope: String {
        url == nil ? "client + embedded server, one process" : "the client process"
    }

    /// Prints one column per client or connection kind: a JSON object with `--json`, else the
    /// table titled with `target` (said to be the embedded server when it is).
    private func report(_ columns: [(String, BenchResult)], target: String) {
        if json {
            StandardOutput.line(JSONValue.object(JSONObject(columns.map { ($0.0, $0.1.json) })).jsonString)
        } else {
            StandardOutput.line(BenchResult.table(target: (url == nil ? "embedded server " : "") + target, columns: columns))
        }
    }
}
