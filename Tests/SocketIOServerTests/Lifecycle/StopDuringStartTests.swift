import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// `stop()` while `start()` is still starting: the stop wins. Before, `stop()` saw a server not
/// running yet and did nothing, and the start then went on to listen: a server its caller
/// believed stopped.
@Suite(.timeLimit(.minutes(1))) struct StopDuringStartTests {
    /// A cluster transport whose subscription is under way until the transport is shut down (a
    /// slow database, its connection closed by the stop): holds `start()` before it listens.
    final class SlowToJoin: ClusterTransport {
        /// Opens when the subscription is under way.
        let subscribing = Gate()
        private let closed = Gate()

        func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws {
            subscribing.open()
            await closed.wait()
        }

        func publish(_ message: ClusterMessage) async throws {}
        func shutdown() async { closed.open() }
    }

    @Test("stop() while start() joins the cluster: start() does not listen, the server ends stopped and cannot be started again")
    func stopWhileJoiningTheCluster() async throws {
        let transport = SlowToJoin()
        var configuration = SocketIOServer.Configuration()
        configuration.adapter = .cluster(transport, ClusterOptions())
        let server = SocketIOServer(configuration: configuration)
        _ = server.namespace("/")
        let starting = Task { try await server.start(host: "127.0.0.1", port: 0) }
        try await withTimeout(10, "start() joining the cluster") { await transport.subscribing.wait() }

        // Shutting the transport down (part of the stop) lets the start go on.
        try await withTimeout(30, "stop()") { await server.stop() }
        let outcome = await starting.result
        if case .success(let running) = outcome {
            Issue.record("start() listened on port \(running.port) after stop() returned")
            await running.stop()
        }
        #expect(throws: SocketIOServerError.stoppedWhileStarting) { try outcome.get() }
        #expect(server.running == nil)
        #expect(server.diagnostics.hasPrefix("server stopped"), "\(server.diagnostics)")
        await #expect(throws: SocketIOServerError.alreadyStarted) { _ = try await server.start(port: 0) }
    }

    // MARK: - The lifecycle alone

    /// Stoppers and listeners are numbers here.
    typealias Lifecycle = ServerLifecycle<Int, Int>

    @Test("idle → starting → running → stopped; a second start is refused; a stop from idle stops for good")
    func lifecycle() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.start() == true)
        #expect(lifecycle.start() == false)
        #expect(lifecycle.started(80) == .running)
        #expect(lifecycle.running == 80)
        guard case .stopRunning(80) = lifecycle.stop() else { Issue.record("expected stopRunning"); return }
        #expect(lifecycle.running == nil)
        #expect(lifecycle.start() == false)
        guard case .nothing = lifecycle.stop() else { Issue.record("expected nothing"); return }

        var never = Lifecycle()
        guard case .nothing = never.stop() else { Issue.record("expected nothing"); return }
        #expect(never.start() == false)
    }

    @Test("a failed start goes back to idle: it may be tried again")
    func failedStart() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.start() == true)
        #expect(lifecycle.startEnded().isEmpty)
        #expect(lifecycle.start() == true)
    }

    @Test("a stop while starting wins: the start sees it before listening, or once listening (then stops its listener); the stops waiting are resumed; stopped for good")
    func stopWhileStarting() {
        for listened in [false, true] {
            var lifecycle = Lifecycle()
            #expect(lifecycle.start() == true)
            #expect(!lifecycle.stopRequested)
            guard case .interruptStart = lifecycle.stop() else { Issue.record("expected interruptStart"); return }
            guard case .interruptStart = lifecycle.stop() else { Issue.record("a second stop too"); return }
            #expect(lifecycle.stopRequested)
            #expect(lifecycle.waitForStart(1) == true)
            #expect(lifecycle.waitForStart(2) == true)
            if listened { #expect(lifecycle.started(80) == .stop) }
            #expect(lifecycle.running == nil)
            #expect(lifecycle.startEnded() == [1, 2])
            #expect(lifecycle.waitForStart(3) == false, "the start gave up: a later stop does not wait")
            #expect(lifecycle.start() == false)
            guard case .nothing = lifecycle.stop() else { Issue.record("expected nothing"); return }
        }
    }
}
