import Foundation
import NIOConcurrencyHelpers
import SocketIO

/// Drives the benchmark: `clients` connections, each echoing its share of `events` (pipelined),
/// then measuring ack round trips one at a time.
struct BenchRunner: Sendable {
    var url: URL
    var namespace: String
    var auth: SocketAuth
    var transports: [EngineTransportKind]
    var clients: Int
    var events: Int
    var acks: Int
    var payload: JSONValue = ["symbol": "SWB", "price": 101.25, "qty": 3, "note": "benchmark payload"]
    /// What the process measured for CPU and context switches is (the client alone, or the
    /// client with the embedded server in the same process).
    var usageScope = "this process"
    /// Run the client's handlers inline on the event loop (``HandlerExecutor/inline``).
    var inlineHandlers = false
    /// Run the workload with the (first) manager's event loop as the preferred task executor
    /// (``Manager/taskExecutor``).
    var onEventLoop = false
    /// How long the echo phase may take before the run fails (a server that does not echo).
    var deadline: Duration = .seconds(120)

    func run() async throws -> BenchResult {
        let sockets = try await connectClients()
        guard onEventLoop, let manager = sockets.first?.0 else { return try await measure(sockets) }
        return try await withTaskExecutorPreference(manager.taskExecutor) { try await measure(sockets) }
    }

    private func measure(_ sockets: [(Manager, Socket)]) async throws -> BenchResult {
        let residentMB = Self.residentMegabytes()
        defer { for (manager, _) in sockets { manager.disconnect() } }

        // Throughput: every client emits its share at once; the clock stops at the last echo.
        let share = max(events / clients, 1)
        let total = share * clients
        let progress = ProgressBar(label: "echo", total: total)
        let usageBefore = ProcessUsage.now()
        let start = ContinuousClock.now
        let countdowns = sockets.map { _ in Countdown(share) }
        let deadline = self.deadline
        let watchdog = Task {
            try await Task.sleep(for: deadline)
            for countdown in countdowns { countdown.abort("not every echo came within \(deadline)") }
        }
        defer { watchdog.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for ((_, socket), countdown) in zip(sockets, countdowns) {
                let id = socket.on("echo") { _ in
                    progress.advance()
                    countdown.tick()
                }
                let dropped = socket.on("disconnect") { event in
                    countdown.abort("a connection dropped during the run: \(event.items.first?.stringValue ?? "disconnected")")
                }
                group.addTask {
                    defer { socket.off(id); socket.off(dropped) }
                    for i in 0..<share { try socket.emit("echo", .number(Double(i)), payload) }
                    if let reason = await countdown.wait() {
                        throw BenchError(description: reason)
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        progress.finish()

        // Latency: sequential acks, spread over the clients.
        let latencies = try await Self.roundTrips(acks, label: "ack ") { i in
            _ = try await sockets[i % sockets.count].1.emitWithAck("ack", .number(Double(i)), payload)
        }
        let usage = ProcessUsage.now().since(usageBefore)
        return BenchResult(target: url.absoluteString, clients: clients,
                           echoes: Throughput(count: total, seconds: seconds), acks: Latencies(milliseconds: latencies),
                           residentMB: residentMB, usage: usage, usageScope: usageScope,
                           taskThreads: ProcessThreads.taskThreads)
    }

    /// Connects every client, 50 at a time.
    private func connectClients() async throws -> [(Manager, Socket)] {
        var configuration = Manager.Configuration()
        configuration.defaultAckTimeout = .seconds(30)
        configuration.connectTimeout = .seconds(30)
        configuration.transports = transports
        // A connection that fails, or drops during the run, ends the run with its error.
        configuration.reconnection = false
        if inlineHandlers { configuration.handlerExecutor = .inline }
        let progress = ProgressBar(label: "connect", total: clients)
        var sockets: [(Manager, Socket)] = []
        var remaining = clients
        while remaining > 0 {
            let batch = min(remaining, 50)
            remaining -= batch
            let connected = try await withThrowingTaskGroup(of: (Manager, Socket).self) { group in
                for _ in 0..<batch {
                    group.addTask { [configuration] in
                        let manager = try Manager(url: url, configuration: configuration)
                        let socket = manager.socket(namespace: namespace, auth: auth)
                        try await socket.connect()
                        progress.advance()
                        return (manager, socket)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            sockets.append(contentsOf: connected)
        }
        if clients > 1 { progress.finish() }
        return sockets
    }

    /// This process's resident memory (Linux `/proc/self/status`), in MB; `nil` elsewhere.
    static func residentMegabytes() -> Double? {
        residentMegabytes(ofProcess: "self")
    }

    /// The resident memory of process `pid` (`self`, or a number), from `/proc/PID/status`, in MB.
    static func residentMegabytes(ofProcess pid: String) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes / 1024
    }

    /// Times `count` round trips made one at a time by `trip`, with a progress bar; in
    /// milliseconds, sorted ascending.
    static func roundTrips(_ count: Int, label: String, _ trip: (Int) async throws -> Void) async throws -> [Double] {
        let progress = ProgressBar(label: label, total: count)
        var latencies: [Double] = []
        latencies.reserveCapacity(min(count, 1 << 20))  // `count` is what the user typed
        for index in 0..<count {
            let sent = ContinuousClock.now
            try await trip(index)
            latencies.append((ContinuousClock.now - sent).inSeconds * 1000)
            progress.advance()
        }
        progress.finish()
        return latencies.sorted()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

/// Resumes a waiter once `count` ticks have happened, or at once with a reason when aborted.
final class Countdown: Sendable {
    private struct State {
        var remaining: Int
        var aborted: String?
        var waiter: CheckedContinuation<String?, Never>?
    }

    private let state: NIOLockedValueBox<State>

    init(_ count: Int) {
        state = NIOLockedValueBox(State(remaining: count))
    }

    func tick() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<String?, Never>? in
            state.remaining -= 1
            guard state.remaining <= 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    func abort(_ reason: String) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<String?, Never>? in
            guard state.remaining > 0 else { return nil }
            state.aborted = reason
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: reason)
    }

    /// `nil` when every tick arrived; the reason when aborted.
    func wait() async -> String? {
        await withCheckedContinuation { continuation in
            let result: String?? = state.withLockedValue { state in
                if state.remaining <= 0 { return .some(nil) }
                if let reason = state.aborted { return .some(reason) }
                state.waiter = continuation
                return .none
            }
            if let result { continuation.resume(returning: result) }
        }
    }
}
