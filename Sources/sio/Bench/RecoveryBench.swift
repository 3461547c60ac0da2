import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SocketIOProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sio bench URL --recovery-kill PID`: how long the clients of a server that dies take to be
/// back, recovered, on the others. `clients` clients of ours connect through `url` (a load
/// balancer in front of `sio serve --cluster` processes; half WebSocket only, half polling
/// then upgrade), join a room and get one room message (so they have an offset); then the
/// server `pid` is sent SIGKILL. For each client whose connection dropped: the time from the
/// kill to its CONNECT reply on another server, and whether it was recovered.
struct RecoveryBench: Sendable {
    var url: URL
    var clients: Int
    var pid: Int32

    struct Result: Sendable {
        var clients: Int
        var moved: Int
        var recovered: Int
        var times: Latencies

        var json: JSONValue {
            [
                "clients": .number(Double(clients)),
                "moved": .number(Double(moved)),
                "recovered": .number(Double(recovered)),
                "back_ms": times.json(percentiles: [50, 99]),
            ]
        }

        var table: String {
            MetricTable.render(
                title: "sio bench --recovery-kill — a killed server's clients back on the others (reconnection delay 100–500 ms)",
                headers: ["metric", "value"],
                rows: [
                    ["clients", "\(clients)"],
                    ["moved (their server was killed)", "\(moved)"],
                    ["recovered (same session)", "\(recovered)"],
                    ["kill → back, p50", Latencies.text(times.percentile(50))],
                    ["kill → back, p99", Latencies.text(times.percentile(99))],
                    ["kill → back, max", Latencies.text(times.max)],
                ]
            )
        }
    }

    /// When each client dropped and came back (clock time since the kill, or before it).
    private final class Watch: Sendable {
        struct State {
            var dropped = false
            var back: ContinuousClock.Instant?
        }
        let state = NIOLockedValueBox(State())
    }

    func run() async throws -> Result {
        var managers: [Manager] = []
        defer {
            let managers = managers
            Task { for manager in managers { await manager.close() } }
        }
        var sockets: [SocketIO.Socket] = []
        for index in 0..<clients {
            var configuration = Manager.Configuration()
            configuration.transports = index.isMultiple(of: 2) ? [.websocket] : [.polling, .websocket]
            configuration.reconnectionDelay = .milliseconds(100)
            configuration.reconnectionDelayMax = .milliseconds(500)
            let manager = try Manager(url: url, configuration: configuration)
            managers.append(manager)
            let socket = manager.socket()
            try await socket.connect()
            _ = try await socket.emitWithAck("join", "recovery-bench")
            sockets.append(socket)
        }
        // One room message each: every client has an offset to recover from.
        let first = sockets.map { $0.events(named: "room-message") }
        _ = try await sockets[0].emitWithAck("room-message", "recovery-bench", "first")
        for stream in first {
            var iterator = stream.makeAsyncIterator()
            guard await iterator.next() != nil else { throw BenchError(description: "a client got no room message") }
        }
        let watches = sockets.map { _ in Watch() }
        var followers: [Task<Void, Never>] = []
        for (socket, watch) in zip(sockets, watches) {
            let changes = socket.statusChanges
            followers.append(Task {
                for await status in changes {
                    switch status {
                    case .disconnected, .connecting:
                        watch.state.withLockedValue { $0.dropped = true }
                    case .connected:
                        let now = ContinuousClock.now
                        watch.state.withLockedValue { state in
                            if state.dropped, state.back == nil { state.back = now }
                        }
                    case .notConnected:
                        break
                    }
                }
            })
        }
        defer { for follower in followers { follower.cancel() } }
        // Let the followers see the current status before the kill.
        await Task.yield()
        let killed = ContinuousClock.now
        guard kill(pid, SIGKILL) == 0 else { throw BenchError(description: "cannot kill \(pid): errno \(errno)") }
        // Done when every client that dropped is back and none dropped for half a second.
        let deadline = killed + .seconds(60)
        while true {
            let states = watches.map { $0.state.withLockedValue { $0 } }
            let dropped = states.filter(\.dropped)
            if !dropped.isEmpty, dropped.allSatisfy({ $0.back != nil }), ContinuousClock.now - killed > .milliseconds(500) { break }
            guard ContinuousClock.now < deadline else { throw BenchError(description: "not every client was back within 60 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
        var times: [Double] = []
        var recovered = 0
        for (socket, watch) in zip(sockets, watches) {
            guard let back = watch.state.withLockedValue({ $0.back }) else { continue }
            times.append((back - killed).inSeconds * 1000)
            if socket.recovered { recovered += 1 }
        }
        return Result(clients: clients, moved: times.count, recovered: recovered, times: Latencies(milliseconds: times.sorted()))
    }
}
