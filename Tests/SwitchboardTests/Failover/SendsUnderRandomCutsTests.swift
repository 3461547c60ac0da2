import Foundation
import Harness
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// Sends racing drops: a pooled Socket.IO connection whose channel is pinned to Socket.IO
/// (`.failover(policy: .pinned(to: .socketIO))`), behind a fault proxy that cuts every
/// connection at random moments (seeded). Each of 1,000 sends either returns — and the server
/// then handles it exactly once, in order — or throws, and the server never sees it. None both,
/// none twice.
@Suite struct SendsUnderRandomCutsTests {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    enum Outcome: Sendable, Equatable {
        case returned
        case failed(String)
    }

    @Test func everySendIsDeliveredOnceOrFailsNeverBoth() async throws {
        let count = 1_000
        let seed = ProcessInfo.processInfo.environment["SWITCHBOARD_SEED"].flatMap(UInt64.init) ?? .random(in: 1...UInt64.max)
        print("seed: \(seed) (replay: SWITCHBOARD_SEED=\(seed))")

        let server = SocketIOServer(logger: Self.silent)
        let channels = ReliableChannels(server: server)
        let received = NIOLockedValueBox<[Int]>([])
        let progress = AsyncStream<Int>.makeStream()
        channels.onChannel { channel in
            channel.on("n") { payload in
                guard let number = payload.intValue else { return }
                let total = received.withLockedValue { received in
                    received.append(number)
                    return received.count
                }
                progress.continuation.yield(total)
            }
        }
        let running = try await server.start()
        let proxy = try await FaultProxy.start(upstreamPort: running.port)

        var options = FailoverDriver.Options(
            webSocketURL: URL(string: "ws://127.0.0.1:\(proxy.port)/ws")!,  // never used: pinned
            socketIOURL: URL(string: proxy.url)!
        )
        options.maxAttempts = 1_000
        options.connectTimeout = .seconds(5)
        options.networkMonitor = nil
        let driver = FailoverDriver(options: options, policy: .pinned(to: .socketIO))
        let factory = DriverConnectionFactory { _ in driver }
        let diagnose = {
            "client: \(driver.diagnostics)\n" + Manager.live.all.flatMap(\.diagnostics).joined(separator: "\n")
                + "\nserver: \(channels.diagnostics)\n" + server.diagnostics
        }
        let manager = ConnectionManager(factory: factory, scanInterval: .milliseconds(100))
        var configuration = ConnectionConfiguration(url: URL(string: proxy.url)!)
        configuration.connectTimeout = .seconds(5)
        let lease = try await manager.lease(configuration)
        let connection = lease.connection
        _ = try await connection.stateChanges().firstMatch(within: 20, "connected") { $0 == .connected }

        // The faults: every connection through the proxy cut after a random 5–120 ms, until the
        // sends are done.
        let cuts = Task { () -> Int in
            var generator = SplitMix64(seed: seed)
            var made = 0
            while !Task.isCancelled {
                // The fault schedule, not a wait for anything.
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...120, using: &generator)))
                proxy.cutAll()
                made += 1
            }
            return made
        }

        var outcomes: [Outcome] = []
        var generator = SplitMix64(seed: seed &+ 1)
        for number in 0..<count {
            do {
                try await connection.send("n", .number(Double(number)))
                outcomes.append(.returned)
            } catch {
                outcomes.append(.failed("\(error)"))
            }
            // Paced so that the sends span many cuts (about 3 s in all).
            try await Task.sleep(for: .microseconds(Int.random(in: 0...5_000, using: &generator)))
        }
        cuts.cancel()
        let cutsMade = await cuts.value

        let returned = outcomes.indices.filter { outcomes[$0] == .returned }
        if !returned.isEmpty {
            // Every send that returned arrives, once the cuts stop.
            do {
                _ = try await progress.stream.firstMatch(within: 60, "the returned sends at the server") { $0 >= returned.count }
            } catch {
                Issue.record("\(error) (seed \(seed), \(received.withLockedValue { $0.count }) received)\n\(diagnose())")
                throw error
            }
        }
        let seen = received.withLockedValue { $0 }
        let failed = Set(outcomes.indices.filter { outcomes[$0] != .returned })
        print("measured: \(count) sends, \(returned.count) returned, \(failed.count) failed, \(cutsMade) cuts (seed \(seed))")

        #expect(seen == returned, "the server handled exactly the sends that returned, once each, in order")
        #expect(Set(seen).isDisjoint(with: failed), "no failed send was handled")
        #expect(cutsMade >= 20, "the sends raced enough drops")

        lease.release()
        await manager.shutdown()
        await proxy.stop()
        await running.stop()
    }
}
