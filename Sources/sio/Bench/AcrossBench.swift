import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SocketIOProtocol

/// `sio bench URL --across URL2`: a cluster measured from outside, as a user's clients see it.
/// A client of ours on `url` emits the demo's `room-message` to a room that a client on `other`
/// joined (two `sio serve --cluster` processes, or any servers with the demo contract in one
/// cluster). Throughput: `broadcasts` pipelined from the sender, until the listener has them all
/// (and whether they came in order). Latency: one at a time, from the sender's `emit` to the
/// listener's handler.
struct AcrossBench: Sendable {
    /// The sender's server.
    var url: URL
    /// The listener's server, in the same cluster.
    var other: URL
    /// How many the throughput figure sends, pipelined.
    var broadcasts: Int
    /// How many the latency figures time, one at a time.
    var probes: Int
    /// Both clients' handlers inline on their event loops (``HandlerExecutor/inline``).
    var inlineHandlers = false

    struct Result: Sendable {
        var broadcasts: Throughput
        var outOfOrder: Int
        var probes: Latencies

        var json: JSONValue {
            [
                "broadcasts_per_s": .number(broadcasts.perSecond.rounded()),
                "out_of_order": .number(Double(outOfOrder)),
                "latency_ms": probes.json(percentiles: [50, 99]),
            ]
        }
    }

    /// What the listener's handler saw: the numbers in arrival order, and when the last came.
    private final class Listener: Sendable {
        struct State {
            var seen: [Int] = []
            var waiting: (number: Int, continuation: CheckedContinuation<ContinuousClock.Instant?, Never>)?
            var arrivals: [Int: ContinuousClock.Instant] = [:]
            var closed = false
        }
        let state = NIOLockedValueBox(State())

        func heard(_ number: Int) {
            let now = ContinuousClock.now
            let waiter = state.withLockedValue { state -> CheckedContinuation<ContinuousClock.Instant?, Never>? in
                state.seen.append(number)
                guard let waiting = state.waiting, waiting.number == number else {
                    state.arrivals[number] = now
                    return nil
                }
                state.waiting = nil
                return waiting.continuation
            }
            waiter?.resume(returning: now)
        }

        func closed() {
            let waiter = state.withLockedValue { state in
                state.closed = true
                defer { state.waiting = nil }
                return state.waiting?.continuation
            }
            waiter?.resume(returning: nil)
        }

        /// When number `number` arrived (at once when it has), `nil` when the listener's
        /// connection closed first.
        func arrival(of number: Int) async -> ContinuousClock.Instant? {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> ContinuousClock.Instant?? in
                    if let at = state.arrivals.removeValue(forKey: number) { return .some(at) }
                    if state.closed { return .some(nil) }
                    state.waiting = (number, continuation)
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    func run() async throws -> Result {
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        // A server that is not there fails the run instead of being retried for ever.
        configuration.reconnection = false
        if inlineHandlers { configuration.handlerExecutor = .inline }
        let senderManager = try Manager(url: url, configuration: configuration)
        let listenerManager = try Manager(url: other, configuration: configuration)
        defer {
            senderManager.disconnect()
            listenerManager.disconnect()
        }
        let sender = senderManager.socket(namespace: "/")
        let listener = listenerManager.socket(namespace: "/")
        try await sender.connect()
        try await listener.connect()
        let room = "across-\(UUID().uuidString.prefix(8))"
        _ = try await listener.emitWithAck("join", .string(room))

        let heard = Listener()
        listener.on("room-message") { event in
            if let number = event.items.dropFirst().first?.intValue { heard.heard(number) }
        }
        listener.on("disconnect") { _ in heard.closed() }

        // Throughput: every broadcast at once, timed to the listener's last.
        let started = ContinuousClock.now
        for index in 0..<broadcasts { try sender.emit("room-message", .string(room), .number(Double(index))) }
        guard await heard.arrival(of: broadcasts - 1) != nil else {
            throw BenchError(description: "the listener's connection closed during the broadcasts")
        }
        let seconds = (ContinuousClock.now - started).inSeconds
        let order = heard.state.withLockedValue { state in
            defer { state.seen = []; state.arrivals = [:] }
            return state.seen
        }
        let outOfOrder = zip(order, order.dropFirst()).filter { $0 >= $1 }.count

        // Latency: one at a time, from the sender's emit to the listener's handler.
        var latencies: [Double] = []
        let progress = ProgressBar(label: "probes", total: probes)
        for offset in 0..<probes {
            let number = broadcasts + offset
            let sent = ContinuousClock.now
            try sender.emit("room-message", .string(room), .number(Double(number)))
            guard let arrived = await heard.arrival(of: number) else {
                throw BenchError(description: "the listener's connection closed during the probes")
            }
            latencies.append((arrived - sent).inSeconds * 1000)
            progress.advance()
        }
        progress.finish()
        return Result(broadcasts: Throughput(count: broadcasts, seconds: seconds), outOfOrder: outOfOrder,
                      probes: Latencies(milliseconds: latencies.sorted()))
    }

    func table(_ result: Result) -> String {
        MetricTable.render(
            title: "sio bench --across — \(url.absoluteString) → a room's listener on \(other.absoluteString)",
            headers: ["metric", "value"],
            rows: [
                ["broadcasts/s (\(broadcasts), pipelined)", String(format: "%.0f", result.broadcasts.perSecond)],
                ["out of order", "\(result.outOfOrder)"],
                ["latency p50 (\(probes), one at a time)", Latencies.text(result.probes.percentile(50))],
                ["latency p99", Latencies.text(result.probes.percentile(99))],
                ["latency max", Latencies.text(result.probes.max)],
            ]
        )
    }
}
