import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Rough numbers for the report, not a benchmark (that is `sio bench`): run with
/// `SWITCHBOARD_PERF=1 swift test --filter PerformanceProbe` (best in release).
@Suite("Performance probe", .enabled(if: ProcessInfo.processInfo.environment["SWITCHBOARD_PERF"] == "1"), .serialized)
struct PerformanceProbe {
    static func manager(_ demo: DemoServer) throws -> Manager {
        var configuration = Manager.Configuration()
        configuration.defaultAckTimeout = .seconds(30)
        return try Manager(url: demo.url, configuration: configuration)
    }

    @Test("echo throughput and ack round trip over WebSocket")
    func echoAndAcks() async throws {
        try await DemoServer.with { demo in
            let manager = try Self.manager(demo)
            let socket = manager.socket()
            try await socket.connect()
            let total = 50_000
            let received = Counter()
            socket.on("echo") { _ in received.increment() }
            let start = ContinuousClock.now
            for index in 0..<total {
                try socket.emit("echo", .number(Double(index)), "payload")
                if index % 500 == 499 {
                    // Keep at most ~1000 in flight so the probe measures the steady state.
                    await received.wait(atLeast: index - 1000)
                }
            }
            try await withTimeout(120, "all echoes") { await received.wait(atLeast: total) }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("PERF echo: \(total) events in \(elapsed) = \(Int(Double(total) / seconds)) events/s")

            var samples: [Double] = []
            for index in 0..<3_000 {
                let sent = ContinuousClock.now
                _ = try await socket.emitWithAck("ack", .number(Double(index)))
                let rtt = ContinuousClock.now - sent
                samples.append(Double(rtt.components.attoseconds) / 1e12 + Double(rtt.components.seconds) * 1e6)
            }
            samples.sort()
            print("PERF ack round trip: p50 \(Int(samples[samples.count / 2])) µs, p99 \(Int(samples[samples.count * 99 / 100])) µs")
            await manager.close()
        }
    }

    @Test("memory with 1,000 idle WebSocket clients (client and server in one process)")
    func thousandClients() async throws {
        try await DemoServer.with { demo in
            let before = Self.residentMegabytes()
            var managers: [Manager] = []
            for _ in 0..<1_000 {
                let manager = try Self.manager(demo)
                try await manager.socket().connect()
                managers.append(manager)
            }
            let after = Self.residentMegabytes()
            print("PERF 1000 clients: RSS \(before) MB → \(after) MB (clients and server together), sessions \(demo.server.sessionCount)")
            let echoes = managers[999].socket().events(named: "echo")
            try managers[999].socket().emit("echo", "still fine")
            _ = try await echoes.first(1)
            for manager in managers { await manager.close() }
        }
    }

    static func residentMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return -1 }
        return kilobytes / 1024
    }
}

/// A count that tasks can wait on.
///
/// `@unchecked Sendable`: all mutable state is guarded by `lock`.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    func increment() {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            value += 1
            let ready = waiters.filter { $0.0 <= value }.map(\.1)
            waiters.removeAll { $0.0 <= value }
            return ready
        }
        for waiter in ready { waiter.resume() }
    }

    func wait(atLeast target: Int) async {
        await withCheckedContinuation { continuation in
            let ready = lock.withLock {
                if value >= target { return true }
                waiters.append((target, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
