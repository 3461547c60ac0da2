import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// The driver's listeners run on the handler executor, which may be behind: a suspension and
/// the next `open` still keep the sessions apart. (That a recovered session's missed events come
/// through before `open` returns is `Socket.connect()`'s: `RecoveredConnectTests`.)
@Suite(.timeLimit(.minutes(1)))
struct SocketIODriverSuspendTests {
    /// A suspended session's `disconnect` reaches the driver's listener late, after the next
    /// `open` began. It belongs to the earlier session and must neither end the new one nor
    /// silence its events (`AppLifecycleTests` lost every recovered event this way, beside CPU hogs).
    @Test func aLateDisconnectOfTheSuspendedSessionLeavesTheNextOpenListening() async throws {
        try await Self.suspendAndOpenAgain(holdingFromTheFirstOpen: false)
    }

    /// The same, when the first session's `connect` listener is late too: held with its
    /// `disconnect` behind the executor until the next `open` began, it must not count as the
    /// new session's connect (and so let the old `disconnect` end it).
    @Test func aLateConnectAndDisconnectOfTheSuspendedSessionLeaveTheNextOpenListening() async throws {
        try await Self.suspendAndOpenAgain(holdingFromTheFirstOpen: true)
    }

    /// Opens, suspends and opens again with the handler executor held (from before the first
    /// open, or from the suspension) until the server heard the second CONNECT, then checks that
    /// the new session's events still come through.
    static func suspendAndOpenAgain(holdingFromTheFirstOpen: Bool) async throws {
        let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(configuration: SocketIOServer.Configuration(), logger: silent)
        // The second CONNECT waits here, so the late listeners run while the open connects.
        let (arrived, admit) = (Gate(), Gate())
        let connects = NIOLockedValueBox(0)
        server.namespace("/").use { _ in
            guard connects.withLockedValue({ $0 += 1; return $0 }) == 2 else { return }
            arrived.open()
            await admit.wait()
        }
        server.namespace("/").onConnection { socket in
            _ = socket.on("poke") { _ in _ = socket.emit("poked") }
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        defer { admit.open() }
        let driver = try Self.driver(for: running)

        // A new session's `open` returns without waiting for its listeners: held from the
        // first open, its `connect` listener waits too, then its `disconnect`.
        var release: (@Sendable () -> Void)?
        if holdingFromTheFirstOpen { release = await holdExecutor { driver.manager.runOnHandlerExecutor($0) } }
        try await withTimeout(10, "first open") { try await driver.open { _ in } }
        if release == nil { release = await holdExecutor { driver.manager.runOnHandlerExecutor($0) } }
        defer { release?() }
        await driver.suspend()

        let (events, sink) = AsyncStream.makeStream(of: DriverEvent.self)
        let secondOpen = Task { try await driver.open { sink.yield($0) } }
        try await withTimeout(10, "the server hears the second CONNECT") { await arrived.wait() }
        release?()
        // Everything queued so far, the late listeners among it, has run.
        await withCheckedContinuation { done in driver.manager.runOnHandlerExecutor { done.resume() } }
        admit.open()
        try await withTimeout(10, "second open") { try await secondOpen.value }

        try await driver.send("poke", .null)
        let first = try await events.first(1, within: 10, "the server's answer on the new session")
        guard case .event("poked", _) = first.first else {
            Issue.record("the new session's first event is \(first), not poked: the late listeners ended it")
            return
        }
        await driver.close()
        await running.stop()
    }

    static func driver(for running: RunningServer) throws -> SocketIODriver {
        var configuration = ConnectionConfiguration(url: running.url)
        configuration.transport = .webSocketOnly
        return try SocketIODriver(configuration: configuration)
    }
}
