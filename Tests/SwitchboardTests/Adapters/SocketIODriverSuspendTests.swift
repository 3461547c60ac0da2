import Dispatch
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// A suspended session's `disconnect` reaches the driver's listener late, on the handler
/// executor, when the machine is busy: after the next `open` began. It belongs to the earlier
/// session and must neither end the new one nor silence its events (`AppLifecycleTests` lost
/// every recovered event this way, beside CPU hogs).
@Suite(.timeLimit(.minutes(1)))
struct SocketIODriverSuspendTests {
    @Test func aLateDisconnectOfTheSuspendedSessionLeavesTheNextOpenListening() async throws {
        let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(configuration: SocketIOServer.Configuration(), logger: silent)
        // The second CONNECT waits here, so the late `disconnect` runs while the open connects.
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
        var configuration = ConnectionConfiguration(url: running.url)
        configuration.transport = .webSocketOnly
        let driver = try SocketIODriver(configuration: configuration)
        try await withTimeout(10, "first open") { try await driver.open { _ in } }

        // Hold the handler executor (a serial queue): the suspended session's `disconnect`
        // listener waits behind this.
        let held = DispatchSemaphore(value: 0)
        let holding = Gate()
        driver.manager.runOnHandlerExecutor {
            holding.open()
            held.wait()
        }
        await holding.wait()
        await driver.suspend()

        let (events, sink) = AsyncStream.makeStream(of: DriverEvent.self)
        let secondOpen = Task { try await driver.open { sink.yield($0) } }
        try await withTimeout(10, "the server hears the second CONNECT") { await arrived.wait() }
        held.signal()
        // Everything queued so far, the late `disconnect` among it, has run.
        await withCheckedContinuation { done in driver.manager.runOnHandlerExecutor { done.resume() } }
        admit.open()
        try await withTimeout(10, "second open") { try await secondOpen.value }

        try await driver.send("poke", .null)
        let first = try await events.first(1, within: 10, "the server's answer on the new session")
        guard case .event("poked", _) = first.first else {
            Issue.record("the new session's first event is \(first), not poked: the late disconnect ended it")
            return
        }
        await driver.close()
        await running.stop()
    }
}
