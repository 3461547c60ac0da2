import Foundation
import Harness
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The network path and the app's lifecycle steer the manager: an injected monitor and a test
/// clock, the embedded server behind the fault proxy.
@Suite("Network path and lifecycle")
struct NetworkAndLifecycleTests {
    /// Records the manager's events.
    final class EventLog: Sendable {
        private let events = NIOLockedValueBox<[ManagerEvent]>([])
        private let task: Task<Void, Never>

        init(_ manager: Manager) {
            let stream = manager.events
            let events = self.events
            task = Task { for await event in stream { events.withLockedValue { $0.append(event) } } }
        }

        var all: [ManagerEvent] { events.withLockedValue { $0 } }

        /// Waits until an event matching `predicate` was recorded.
        func waitFor(_ what: String, _ predicate: @escaping @Sendable (ManagerEvent) -> Bool) async throws {
            try await withTimeout(20, what) {
                while !self.all.contains(where: predicate) { await Task.yield() }
            }
        }

        deinit { task.cancel() }
    }

    /// Waits until the manager acted on `path`.
    static func waitUntil(_ manager: Manager, saw path: NetworkPath) async throws {
        try await withTimeout(20, "the manager seeing \(path)") {
            while manager.networkPath != path { await Task.yield() }
        }
    }

    @Test func noAttemptIsSpentWithoutAPathAndOneIsMadeAtOnceWhenItReturns() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        let clock = ManualClock()
        let monitor = ManualNetworkMonitor()
        var configuration = Manager.Configuration.quickReconnect()
        configuration.clock = clock
        configuration.networkMonitor = monitor
        configuration.jitter = { 0 }
        configuration.reconnectionDelay = .seconds(1)
        configuration.reconnectionDelayMax = .seconds(5)
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let log = EventLog(manager)
        let socket = manager.socket()
        let connects = socket.events(named: "connect")
        try await withTimeout(20, "connect") { try await socket.connect() }
        try await Self.waitUntil(manager, saw: .satisfied)

        // The link dies; the first attempt is scheduled after the first delay.
        proxy.refuseNewConnections(true)
        proxy.cutAll()
        _ = try await withTimeout(20, "the first delay") { await clock.waitForSleep(1) { $0 == .seconds(1) } }

        // The path goes away before the delay ends: the attempt waits for it, however long.
        monitor.update(.unsatisfied)
        try await Self.waitUntil(manager, saw: .unsatisfied)
        clock.advance(by: .seconds(1))
        clock.advance(by: .seconds(60))
        #expect(!log.all.contains { if case .reconnectAttempt = $0 { true } else { false } },
                "no attempt while there is no path")

        // The path comes back: attempt 1 goes at once, without the clock moving.
        proxy.refuseNewConnections(false)
        monitor.update(.satisfied)
        try await log.waitFor("the reconnection") { if case .reconnect = $0 { true } else { false } }
        let attempts = log.all.compactMap { event -> Int? in if case .reconnectAttempt(let n) = event { n } else { nil } }
        #expect(attempts == [1], "the attempt that waited for the path, and no other")
        #expect(log.all.contains { if case .reconnect(1) = $0 { true } else { false } })
        _ = try await connects.first(2, within: 20, "the socket connected again")

        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    @Test func suspendAfterGraceClosesKeepingTheSessionAndResumeRecoversWithTheBufferedEmits() async throws {
        let harness = try await EmbeddedHarness.start()
        let serverDisconnects = AsyncStream<Void>.makeStream()
        harness.server.onConnectionEvent { event in
            if case .socketDisconnected = event { serverDisconnects.continuation.yield() }
        }
        let clock = ManualClock()
        var configuration = Manager.Configuration.quickReconnect()
        configuration.clock = clock
        configuration.networkMonitor = nil
        let manager = try Manager(url: URL(string: "http://127.0.0.1:\(harness.port)")!, configuration: configuration)
        let socket = manager.socket()
        let echoes = socket.events(named: "echo")
        let news = socket.events(named: "news")
        let disconnects = socket.events(named: "disconnect")
        let connects = socket.events(named: "connect")
        try await withTimeout(20, "connect") { try await socket.connect() }
        let sid = manager.handshake?.sid
        try socket.emit("echo", "before")
        _ = try await echoes.first(1, within: 20, "the echo (an offset to resume from)")

        // Each grace timer starts sleeping on its own task: time moves only once the wait below
        // found it. 7 s is no other timer's length (the engine's 10 s connect timeout sleeps on
        // this clock too, and may or may not have started before the session opened).
        let grace = Duration.seconds(7)

        // Back within the grace: nothing happens to the connection.
        manager.suspend(after: grace)
        _ = try await withTimeout(20, "the grace timer") { await clock.waitForSleep(1) { $0 == grace } }
        clock.advance(by: .seconds(5))
        manager.resume()
        clock.advance(by: .seconds(6))
        #expect(!manager.isSuspended)
        #expect(socket.connected && manager.handshake?.sid == sid, "the same session")

        // Past the grace: closed cleanly, the socket still wanted, emits buffered.
        manager.suspend(after: grace)
        _ = try await withTimeout(20, "the second grace timer") { await clock.waitForSleep(2) { $0 == grace } }
        clock.advance(by: .seconds(11))
        _ = try await disconnects.first(1, within: 20, "the disconnect")
        // (A session can be recovered once the server has seen it leave.)
        _ = try await serverDisconnects.stream.first(1, within: 20, "the server seeing the socket leave")
        #expect(manager.isSuspended)
        #expect(socket.active, "the socket still wants its connection")
        for index in 0..<100 { harness.server.namespace("/").emit("news", .number(Double(index))) }
        try socket.emit("echo", "buffered")
        #expect(manager.transport == nil, "no reconnection while suspended")

        manager.resume()
        _ = try await connects.first(2, within: 20, "the connect, then the one after resuming")
        #expect(socket.recovered, "the server kept the session through the suspension")
        let missed = try await news.first(100, within: 20, "what the server sent meanwhile")
        #expect(missed.map(\.items) == (0..<100).map { [JSONValue.number(Double($0))] })
        let echo = try await echoes.first(1, within: 20, "the buffered emit's echo")
        #expect(echo.first?.items == ["buffered"])

        await manager.close()
        await harness.stop()
    }
}
