import ArgumentParser
import Foundation
import SocketIO

/// `sio bench URL`: echo throughput and ack round-trip latency against a server.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure echo throughput (events/s) and ack round-trip latency (p50/p90/p99/max).",
        discussion: """
        The server must answer `echo` by emitting `echo` back with the same arguments, and `ack` by \
        acknowledging with them (as `sio serve` and the test peers do).
        """
    )

    @Argument(help: "The server URL, e.g. http://127.0.0.1:3000")
    var url: String

    @Option(name: .long, help: "Echo events to send in total.")
    var events: Int = 10_000

    @Option(name: .long, help: "Concurrent connections.")
    var clients: Int = 1

    @Option(name: .long, help: "Sequential ack round trips to time.")
    var acks: Int = 2_000

    @Option(name: .long, help: "The namespace to use.")
    var namespace: String = "/"

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            guard events > 0, clients > 0, acks >= 0 else { throw CLIError("--events and --clients must be positive") }
            guard let serverURL = URL(string: url), serverURL.host != nil else { throw CLIError("invalid URL: \(url)") }
            let runner = BenchRunner(url: serverURL, namespace: namespace, auth: .none,
                                     clients: clients, events: events, acks: acks)
            let result: BenchResult
            do {
                result = try await runner.run()
            } catch {
                throw CLIError("\(error)")
            }
            print(json ? result.json.jsonString : result.table)
        }
    }
}
