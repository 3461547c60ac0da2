import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardCore
import SwitchboardTestSupport
import Testing

/// The cluster heartbeat on the test clock: one every heartbeat interval after the last
/// message was made, as socket.io's `ClusterAdapterWithHeartbeat` (which restarts its timer on
/// every publish) — even when a publish takes a while to finish.
@Suite(.timeLimit(.minutes(1))) struct ClusterHeartbeatTests {
    /// A transport whose every publish takes as long as the test says: it records what it was
    /// handed and when, then waits until ``finish()``.
    final class SlowTransport: ClusterTransport {
        let clock: ManualClock
        let published = AsyncStream.makeStream(of: (at: Duration, type: ClusterMessageType).self)
        /// Publishes waiting to return, and ``finish()`` calls that came before their publish
        /// started waiting (the test reads the record and finishes at once: the publish may not
        /// be waiting yet — a finish lost that way once hung the test in CI).
        private struct Gate {
            var waiting: [CheckedContinuation<Void, Never>] = []
            var early = 0
        }
        private let gate = NIOLockedValueBox(Gate())

        init(clock: ManualClock) { self.clock = clock }

        func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws {}

        func publish(_ message: ClusterMessage) async throws {
            published.continuation.yield((clock.now.offset, message.type))
            await withCheckedContinuation { continuation in
                let finished = gate.withLockedValue { gate -> Bool in
                    guard gate.early == 0 else {
                        gate.early -= 1
                        return true
                    }
                    gate.waiting.append(continuation)
                    return false
                }
                if finished { continuation.resume() }
            }
        }

        /// Lets the publish under way return (at once, if it is not waiting yet).
        func finish() {
            let first = gate.withLockedValue { gate -> CheckedContinuation<Void, Never>? in
                guard !gate.waiting.isEmpty else {
                    gate.early += 1
                    return nil
                }
                return gate.waiting.removeFirst()
            }
            first?.resume()
        }

        func shutdown() async {
            let all = gate.withLockedValue { gate in
                defer { gate.waiting.removeAll() }
                return gate.waiting
            }
            for continuation in all { continuation.resume() }
        }
    }

    final class NoSockets: ClusterReceiver {
        func clusterBroadcast(_ packet: ClusterPacket, options: ClusterBroadcastOptions, origin: ClusterOrigin?) {}
        func clusterAdvance(_ origin: ClusterOrigin) {}
        func clusterBroadcastWithAck(
            _ packet: ClusterPacket, options: ClusterBroadcastOptions,
            onCount: @escaping @Sendable (Int) -> Void, onAck: @escaping @Sendable (JSONValue) -> Void
        ) {}
        func clusterJoin(options: ClusterBroadcastOptions, rooms: [String]) {}
        func clusterLeave(options: ClusterBroadcastOptions, rooms: [String]) {}
        func clusterDisconnect(options: ClusterBroadcastOptions, close: Bool) {}
        func clusterSockets(options: ClusterBroadcastOptions) -> [RemoteSocket] { [] }
        func clusterServerSideEmit(_ packet: [JSONValue], reply: (@Sendable (JSONValue) -> Void)?) {}
    }

    @Test("idle, a heartbeat every 5 s although each publish takes 3 ms; a broadcast postpones the next one to 5 s after it")
    func period() async throws {
        let clock = ManualClock()
        let transport = SlowTransport(clock: clock)
        let cluster = NamespaceCluster(
            name: "/", transport: transport,
            options: ClusterOptions(heartbeatInterval: .seconds(5), heartbeatTimeout: .seconds(10)),
            clock: Timeline(clock), logger: .disabled("test")
        )
        let receiver = NoSockets()
        try await cluster.start(receiver: receiver)
        let published = transport.published.stream

        /// Returns once the heartbeat and liveness loops both sleep. Each reads the time, then
        /// sleeps for what is left: time moved in between would push its deadline past the time
        /// the test moves to, and the heartbeat would never come.
        func loopsWaitOnTheClock() async {
            await clock.waitForSleepers(2)
        }
        /// The next message handed to the transport, which then takes 3 ms to finish.
        func next(_ what: String) async throws -> (at: Duration, type: ClusterMessageType) {
            let message = try #require(try await published.first(1, within: 10, what).first)
            await loopsWaitOnTheClock()
            clock.advance(by: .milliseconds(3))
            transport.finish()
            return message
        }
        func advance(to time: Duration) async {
            await loopsWaitOnTheClock()
            clock.advance(by: time - clock.now.offset)
        }

        let initial = try await next("the initial heartbeat")
        #expect(initial.at == .zero && initial.type == .initialHeartbeat)
        for beat in 1...3 {
            await advance(to: .seconds(5 * beat))
            let heartbeat = try await next("heartbeat \(beat)")
            #expect(heartbeat.at == .seconds(5 * beat) && heartbeat.type == .heartbeat)
        }
        // At 17 s a broadcast: the heartbeat due at 20 s moves to 22 s.
        await advance(to: .seconds(17))
        cluster.publish(.broadcast(packet: ClusterPacket(event: "news", items: [], namespace: "/"), options: ClusterBroadcastOptions(), requestId: nil))
        let broadcast = try await next("the broadcast")
        #expect(broadcast.at == .seconds(17) && broadcast.type == .broadcast)
        await advance(to: .seconds(20))
        await advance(to: .seconds(22))
        let after = try await next("the heartbeat after the broadcast")
        #expect(after.at == .seconds(22) && after.type == .heartbeat)
        let stopping = Task { await cluster.shutdown() }
        #expect(try await next("the goodbye").type == .adapterClose)
        await stopping.value
        _ = receiver
    }
}
