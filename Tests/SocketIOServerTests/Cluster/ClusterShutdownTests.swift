import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardCore
import SwitchboardTestSupport
import Testing

/// Leaving the cluster on the test clock: an adapter with a publish loop says goodbye
/// (`ADAPTER_CLOSE`, ``ClusterHeartbeatTests``); one that has none (never started, its start
/// failed) has nobody to say it to and closes at once, instead of waiting out the goodbye's
/// bound (a second of every `stop()` of a server whose namespaces were never started).
@Suite(.timeLimit(.minutes(1))) struct ClusterShutdownTests {
    static func cluster(_ transport: any ClusterTransport, clock: ManualClock) -> NamespaceCluster {
        NamespaceCluster(name: "/", transport: transport, options: ClusterOptions(), clock: Timeline(clock), logger: .disabled("test"))
    }

    @Test("a never-started adapter shuts down without the clock moving: closed, nothing published")
    func neverStarted() async throws {
        let clock = ManualClock()
        let transport = ClusterHeartbeatTests.SlowTransport(clock: clock)
        let cluster = Self.cluster(transport, clock: clock)
        // The test clock never moves: a shutdown waiting for its goodbye's bound would not return.
        try await withTimeout(10, "the shutdown of a never-started adapter") { await cluster.shutdown() }
        #expect(clock.now.offset == .zero)
        #expect(cluster.isLeaving)
        #expect(cluster.publishNumbered(.none(.heartbeat)) == .failure(.closed), "closed: publishes are refused")
        transport.published.continuation.finish()
        #expect(try await transport.published.stream.first(1, within: 10, "what was published").isEmpty)
    }

    @Test("an adapter whose start failed (its transport unreachable) shuts down without the clock moving")
    func startFailed() async throws {
        let clock = ManualClock()
        let cluster = Self.cluster(LocalClusterTests.UnreachableTransport(), clock: clock)
        await #expect(throws: LocalClusterTests.UnreachableTransport.Down.self) {
            try await cluster.start(receiver: ClusterHeartbeatTests.NoSockets())
        }
        try await withTimeout(10, "the shutdown of an adapter that never ran") { await cluster.shutdown() }
        #expect(clock.now.offset == .zero)
        #expect(cluster.isLeaving)
    }

    /// A transport whose subscription fails, but only when the test says so.
    final class LateFailingTransport: ClusterTransport {
        struct Down: Error {}
        /// Opens when the subscription is under way.
        let subscribing = Gate()
        /// Opened by the test: the subscription then fails.
        let fail = Gate()

        func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws {
            subscribing.open()
            await fail.wait()
            throw Down()
        }

        func publish(_ message: ClusterMessage) async throws { throw Down() }
        func shutdown() async {}
    }

    @Test("a shutdown that began while the adapter was subscribing waits for the goodbye; the subscription failing ends that wait at once")
    func subscriptionFailsWhileShuttingDown() async throws {
        let clock = ManualClock()
        let transport = LateFailingTransport()
        let cluster = Self.cluster(transport, clock: clock)
        let starting = Task { try await cluster.start(receiver: ClusterHeartbeatTests.NoSockets()) }
        try await withTimeout(10, "the subscription under way") { await transport.subscribing.wait() }
        let stopping = Task { await cluster.shutdown() }
        // The goodbye is queued and bounded (a publish loop would start if the subscription
        // succeeded); then the subscription fails: no loop will ever publish it.
        _ = await clock.waitForSleep(1) { $0 == .seconds(1) }
        transport.fail.open()
        await #expect(throws: LateFailingTransport.Down.self) { try await starting.value }
        try await withTimeout(10, "the shutdown") { await stopping.value }
        #expect(clock.now.offset == .zero)
        #expect(cluster.isLeaving)
    }
}
