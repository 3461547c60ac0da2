import Foundation
import SocketIOProtocol
import Switchboard

/// `sio bench --failover`: the same workload through a `Connection` of each kind, against one
/// server that speaks all of them (the demo application): what plain WebSocket saves over
/// Socket.IO, and what the failover channel's numbering and acknowledgements cost on each.
struct ConnectionBench: Sendable {
    /// The kinds compared, in the table's order.
    enum Kind: String, CaseIterable, Sendable {
        case socketIO = "socket.io"
        case webSocket = "websocket"
        case channelOverWebSocket = "channel/ws"
        case channelOverSocketIO = "channel/sio"

        /// The connection factory, and the URL its configuration takes, for a server at `base`.
        func factory(base: URL) throws -> (DriverConnectionFactory, URL) {
            switch self {
            case .socketIO: return (.socketIO, base)
            case .webSocket: return (.plainWebSocket, try Self.webSocketURL(base))
            case .channelOverWebSocket: return (Self.pinned(.webSocket), base)
            case .channelOverSocketIO: return (Self.pinned(.socketIO), base)
            }
        }

        private static func pinned(_ transport: FailoverTransport) -> DriverConnectionFactory {
            .failover(policy: .pinned(to: transport)) { $0.networkMonitor = nil }
        }

        /// `ws://host:port/ws` for `http://host:port`, as the failover connections find it.
        static func webSocketURL(_ base: URL) throws -> URL {
            guard let url = FailoverDriver.webSocketURL(on: base, path: "/ws") else {
                throw BenchError(description: "no WebSocket URL for \(base)")
            }
            return url
        }
    }

    var url: URL
    var events: Int
    var acks: Int
    var payload: JSONValue = ["symbol": "SWB", "price": 101.25, "qty": 3, "note": "benchmark payload"]
    var usageScope = "this process"
    /// How long the echoes may take before the run counts as failed.
    var deadline: Duration = .seconds(120)

    /// One kind: `events` echoes sent as fast as the connection takes them (a channel's full
    /// window is waited out, not counted as an error), timed to the last echo back; then `acks`
    /// requests one at a time.
    func run(_ kind: Kind) async throws -> BenchResult {
        let (factory, target) = try kind.factory(base: url)
        var configuration = ConnectionConfiguration(url: target)
        configuration.connectTimeout = .seconds(10)
        configuration.requestTimeout = .seconds(30)
        let connection = try factory.makeConnection(for: configuration)
        try await connection.connect()
        let residentMB = BenchRunner.residentMegabytes()

        let echoes = connection.events(named: "echo")
        let progress = ProgressBar(label: "\(kind.rawValue) echo", total: events)
        let usageBefore = ProcessUsage.now()
        let start = ContinuousClock.now
        let total = events
        let received = Task { () -> Int in
            var count = 0
            for await _ in echoes {
                count += 1
                progress.advance()
                if count == total { break }
            }
            return count
        }
        // One deadline for the sends and the echoes: a server gone mid-run leaves the window full
        // (nothing acknowledges), and the sends waited for room for good.
        let giveUp = start + deadline
        let watchdog = Task {
            try await Task.sleep(until: giveUp)
            received.cancel()
        }
        for sent in 0..<events {
            while true {
                do {
                    try await connection.send("echo", payload)
                    break
                } catch ConnectionError.queueFull {
                    // The channel's window is full: its acknowledgements free it.
                    guard ContinuousClock.now < giveUp else {
                        watchdog.cancel()
                        received.cancel()
                        await connection.disconnectAndRelease()
                        throw BenchError(description: "\(kind.rawValue): \(sent) of \(events) sent within \(deadline), the queue full (\(connection.state))")
                    }
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
        }
        let echoed = await received.value
        watchdog.cancel()
        guard echoed == events else {
            await connection.disconnectAndRelease()
            throw BenchError(description: "\(kind.rawValue): \(echoed) of \(events) echoes within \(deadline)")
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        progress.finish()

        let latencies = try await BenchRunner.roundTrips(acks, label: "\(kind.rawValue) ack") { _ in
            _ = try await connection.request("ack", payload)
        }
        let usage = ProcessUsage.now().since(usageBefore)
        await connection.disconnectAndRelease()
        return BenchResult(target: target.absoluteString, clients: 1,
                           echoes: Throughput(count: events, seconds: seconds), acks: Latencies(milliseconds: latencies),
                           residentMB: residentMB, usage: usage, usageScope: usageScope,
                           taskThreads: ProcessThreads.taskThreads)
    }
}

extension Connection {
    /// Ends a bench's connection for good: `release()` alone is refused while connected (the
    /// benches called only that, so their connections were never closed, just dropped).
    func disconnectAndRelease() async {
        try? await disconnect()
        try? await release()
    }
}
