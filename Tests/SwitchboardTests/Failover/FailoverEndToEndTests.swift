import Foundation
import Harness
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// A failover channel against the embedded server over loopback, the plain WebSocket path behind
/// the fault proxy: messages both ways while the proxy cuts, stalls and delays the WebSocket path
/// again and again, so the channel switches back and forth — each side sees every message once,
/// in order, and neither side ever holds more than its window unacknowledged.
@Suite struct FailoverEndToEndTests {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// What the server side saw and holds.
    final class ServerSide: Sendable {
        let received = NIOLockedValueBox<[Int]>([])
        let channel = NIOLockedValueBox<ReliableChannel?>(nil)
        let progress = AsyncStream<Int>.makeStream()
        /// The channel, once the client opened it.
        let opened = AsyncStream<ReliableChannel>.makeStream()
    }

    @Test func everyMessageOnceInOrderBothWaysAcrossManySwitches() async throws {
        let count = 10_000
        let server = SocketIOServer(logger: Self.silent)
        let channels = ReliableChannels(server: server)
        let side = ServerSide()
        channels.onChannel { channel in
            side.channel.withLockedValue { $0 = channel }
            side.opened.continuation.yield(channel)
            channel.on("up") { payload in
                guard let number = payload.intValue else { return }
                let total = side.received.withLockedValue { received in
                    received.append(number)
                    return received.count
                }
                side.progress.continuation.yield(total)
            }
            channel.onRequest("echo") { payload in [payload] }
        }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start()
        let proxy = try await FaultProxy.start(upstreamPort: running.port)

        var policy = DefaultFailoverPolicy()
        policy.goodPeriod = .milliseconds(300)  // come back quickly, so the cuts make many switches
        policy.maxGoodPeriod = .milliseconds(300)
        policy.slowRoundTrip = .seconds(60)      // a loaded machine's round trips must not pin it to Socket.IO
        var options = FailoverDriver.Options(
            webSocketURL: URL(string: "ws://127.0.0.1:\(proxy.port)/ws")!,
            socketIOURL: URL(string: "http://127.0.0.1:\(running.port)")!
        )
        options.tickInterval = .milliseconds(50)
        options.connectTimeout = .seconds(5)
        options.maxAttempts = 1_000
        options.networkMonitor = nil
        options.ackTimeout = .milliseconds(400)  // a stalled path is left quickly
        let driver = FailoverDriver(options: options, policy: policy)
        let switches = driver.events()
        let switchCount = NIOLockedValueBox(0)
        let counter = Task { for await event in switches { if case .transportChanged = event { switchCount.withLockedValue { $0 += 1 } } } }
        let connection = try DriverConnectionFactory { _ in driver }
            .makeConnection(for: ConnectionConfiguration(url: URL(string: "http://127.0.0.1:\(running.port)")!))
        let down = connection.events(named: "down")
        try await withTimeout(20, "connect") { try await connection.connect() }

        // The faults, every 150 ms until both directions are through (seeded): mostly cuts, some
        // stalls (open, nothing moving: the acknowledgement deadline finds them), and delays of
        // up to 40 ms switched on and off.
        let seed = ProcessInfo.processInfo.environment["SWITCHBOARD_SEED"].flatMap(UInt64.init) ?? .random(in: 1...UInt64.max)
        print("fault seed: \(seed) (replay: SWITCHBOARD_SEED=\(seed))")
        let faultCounts = NIOLockedValueBox((cuts: 0, stalls: 0, delays: 0))
        let faults = Task {
            var generator = SplitMix64(seed: seed)
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(150))  // the fault schedule, not a wait for anything
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<6:
                    proxy.cutAll()
                    faultCounts.withLockedValue { $0.cuts += 1 }
                case 6..<8:
                    proxy.stallAll()
                    faultCounts.withLockedValue { $0.stalls += 1 }
                default:
                    let delayed = Int.random(in: 0...1, using: &generator) == 0
                    proxy.delay(delayed ? .milliseconds(Int.random(in: 5...40, using: &generator)) : .zero)
                    faultCounts.withLockedValue { $0.delays += 1 }
                }
            }
        }
        let window = options.window
        let peakUnacknowledged = NIOLockedValueBox((client: 0, server: 0))
        let sample = {
            let server = side.channel.withLockedValue { $0?.unacknowledgedCount } ?? 0
            peakUnacknowledged.withLockedValue { peak in
                peak.client = max(peak.client, driver.unacknowledgedCount)
                peak.server = max(peak.server, server)
            }
        }
        // Server → client, until the client is done.
        let stop = NIOLockedValueBox(false)
        let pushedSoFar = NIOLockedValueBox(0)
        // Told once the server has pushed `count` (it goes on pushing until stopped).
        let pushedEnough = AsyncStream<Void>.makeStream()
        let pushing = Task { () -> Int in
            var next = 0
            for await _ in side.opened.stream { break }  // the channel exists
            while !stop.withLockedValue({ $0 }), let channel = side.channel.withLockedValue({ $0 }) {
                do {
                    // A client a window behind holds this up until its acknowledgements make room.
                    try await channel.send("down", .number(Double(next)), waitingUpTo: .seconds(60))
                    next += 1
                    pushedSoFar.withLockedValue { $0 = next }
                    if next == count { pushedEnough.continuation.yield() }
                    if next % 50 == 0 { try? await Task.sleep(for: .milliseconds(10)) }  // paced, not a CPU hog
                } catch {
                    break  // the channel is gone: what was pushed is what the client must have
                }
            }
            return next
        }
        // Client → server: at least `count`, and on until the channel switched 20 times (or the
        // deadline passed: then the counts below fail rather than the test running on).
        // It does not go on for the server's pushes: they cross the same switches on their own,
        // and more traffic up would only slow them on a loaded machine.
        var sent = 0
        // Two minutes, the bound the server's pushes get below: under a parallel suite on a
        // slow day the faults (on a timer) outpace the messages, and 10,000 took over a minute.
        let deadline = ContinuousClock.now + .seconds(120)
        while sent < count || switchCount.withLockedValue({ $0 }) < 20, ContinuousClock.now < deadline {
            do {
                // A window ahead of the server, this waits for its acknowledgements to make room.
                try await driver.send("up", .number(Double(sent)), waitingUpTo: ContinuousClock.now.duration(to: deadline))
            } catch ConnectionError.queueFull {
                break  // no room before the deadline: the checks below say what is missing
            }
            sent += 1
            if sent % 50 == 0 {
                sample()
                try await Task.sleep(for: .milliseconds(10))  // paced: the rate up, not a wait for anything
            }
        }
        // Server → client: at least `count` (the faults go on meanwhile).
        if pushedSoFar.withLockedValue({ $0 }) < count {
            _ = try? await pushedEnough.stream.first(1, within: 120, "the server's first \(count) pushes")
        }
        stop.withLockedValue { $0 = true }
        let pushed = await pushing.value
        let total = sent
        let diagnose = { "client: \(driver.diagnostics)\nserver: \(channels.diagnostics)" }
        let reply: Response?
        do {
            // The window may be full: the request waits for the server's acknowledgements first.
            reply = try await driver.request("echo", "still here", timeout: .seconds(20), waitingUpTo: .seconds(60))
        } catch ConnectionError.queueFull {
            Issue.record("the channel made no progress for a minute:\n\(diagnose())")
            reply = nil
        }
        #expect(reply?.value == "still here", "a request gets its reply across the switches")

        let downs: [JSONValue]
        do {
            downs = try await down.first(pushed, within: 120, "the server's messages")
        } catch {
            Issue.record("\(error)\n\(diagnose())")
            throw error
        }
        _ = try await side.progress.stream.firstMatch(within: 120, "the client's messages") { $0 >= total }
        faults.cancel()

        #expect(side.received.withLockedValue { $0 } == Array(0..<sent), "client → server: once each, in order")
        #expect(downs.compactMap(\.intValue) == Array(0..<pushed), "server → client: once each, in order")
        let switched = switchCount.withLockedValue { $0 }
        let counts = faultCounts.withLockedValue { $0 }
        let peak = peakUnacknowledged.withLockedValue { $0 }
        print("measured: \(sent) messages up, \(pushed) down, \(switched) transport changes; faults: \(counts.cuts) cuts, "
            + "\(counts.stalls) stalls, \(counts.delays) delay changes; most unacknowledged: client \(peak.client), server \(peak.server)")
        #expect(peak.client <= window && peak.server <= window, "memory bounded: the windows are trimmed by acknowledgements")
        #expect(counts.stalls > 0 && counts.cuts > 0)
        #expect(switched >= 20)
        #expect(sent >= count && pushed >= count)

        counter.cancel()
        try await connection.disconnect()
        await proxy.stop()
        await running.stop()
    }
}
