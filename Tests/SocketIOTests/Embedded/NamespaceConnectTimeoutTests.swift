import Foundation
import Harness
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The namespace CONNECT is bounded by the manager's `connectTimeout`, like the Engine.IO open.
/// Before, a server that opened the session but never answered the CONNECT (a hung auth hook,
/// a namespace it answers under another name) left `connect()` waiting for good, and `sio emit
/// --connect-timeout` never ended.
///
/// The timeout runs on a manual clock: with a real one of a second, a loaded machine (the whole
/// suite in parallel on two cores) sometimes took longer to open the session itself, and the
/// test saw the Engine.IO open's timeout instead of the CONNECT's.
@Suite struct NamespaceConnectTimeoutTests {
    /// The manager's `connectTimeout`: the Engine.IO open's timer and each CONNECT's sleep this long.
    static let timeout = Duration.seconds(7)

    /// A manager on `url` whose timers run on `clock`, reconnecting or not.
    static func manager(_ url: URL, _ clock: ManualClock, reconnection: Bool = true) throws -> Manager {
        var configuration = Manager.Configuration()
        configuration.connectTimeout = timeout
        configuration.clock = clock
        configuration.reconnection = reconnection
        return try Manager(url: url, configuration: configuration)
    }

    /// `connect()` on `socket` fails with the CONNECT to `namespace` unanswered, once the clock
    /// passes the CONNECT's deadline. Awaited (after `serverSaw` yields, when given: the CONNECT
    /// is out) as the one sleeper due at ``timeout``: the open's timer, due then too, is
    /// cancelled before any CONNECT goes out, and an answered CONNECT's deadline is cancelled.
    static func expectUnanswered(_ socket: Socket, _ namespace: String, clock: ManualClock, serverSaw: AsyncStream<Void>? = nil) async throws {
        let attempt = Task { try await socket.connect() }
        if let serverSaw { _ = try await serverSaw.first(1, within: 30, "the server getting the CONNECT") }
        try await withTimeout(30, "the CONNECT's timer") { await clock.waitForSleeper(dueAt: timeout) }
        clock.advance(by: timeout)
        await #expect {
            try await withTimeout(30, "connect() to \(namespace), which no answer reaches") { try await attempt.value }
        } throws: { error in
            guard case SocketIOError.connectionFailed(let why) = error else { return false }
            return why.hasPrefix("the server did not answer the CONNECT to namespace \(namespace) within")
        }
    }

    @Test func anUnansweredConnectFailsAfterTheTimeoutAndALateAcceptIsLeftAtOnce() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let serverDisconnects = AsyncStream.makeStream(of: ServerDisconnectReason.self)
        let harness = try await EmbeddedHarness.start()
        let slow = harness.server.namespace("/slow")
        slow.use { _ in
            for await _ in gate.stream { return }
        }
        slow.onConnection { socket in
            socket.onDisconnect { reason in serverDisconnects.continuation.yield(reason) }
        }
        let clock = ManualClock()
        let manager = try Self.manager(harness.url, clock)
        // `/` keeps the session open throughout (without it, the manager closes the session
        // when `/slow` gives up, and the late accept has no connection to come on).
        let root = manager.socket(namespace: "/")
        try await withTimeout(30, "connecting /") { try await root.connect() }
        let socket = manager.socket(namespace: "/slow")
        // `/` is connected: the open's timer and `/`'s deadline are cancelled.
        try await Self.expectUnanswered(socket, "/slow", clock: clock)
        #expect(!socket.connected)

        // The server accepts after all: the client leaves the namespace at once.
        gate.continuation.yield()
        let reason = try await withTimeout(30, "the late socket's disconnect on the server") {
            await serverDisconnects.stream.first { _ in true }
        }
        #expect(reason == .clientNamespaceDisconnect)
        #expect(!socket.connected)

        // The session itself is fine.
        #expect(root.connected)
        #expect(try await root.emitWithAck("ack", 1) == [1])
        await manager.close()
        await harness.stop()
    }

    /// An answered CONNECT's deadline stops sleeping, whether the answer accepts (`/`) or
    /// refuses (`/chat`, which wants a token): left to run, each would hold its task for the
    /// whole `connectTimeout`, thousands in a client whose connections come and go.
    @Test func anAnsweredConnectLeavesNoDeadlineSleeping() async throws {
        let harness = try await EmbeddedHarness.start()
        let clock = ManualClock()
        let manager = try Self.manager(harness.url, clock)
        try await withTimeout(30, "connecting /") { try await manager.socket(namespace: "/").connect() }
        await #expect(throws: SocketIOError.self) {
            try await withTimeout(30, "the refusal of /chat") { try await manager.socket(namespace: "/chat").connect() }
        }
        // A deadline cancelled before its task began to sleep never sleeps at all, so this does
        // not wait for the sleeps to be asked for; without the cancel, both sleep here (on a
        // loaded machine one may not have begun yet, and this passes without proving much).
        #expect(!clock.sleeperDeadlines.contains(Self.timeout), "nothing sleeps until \(Self.timeout): \(clock.sleeperDeadlines)")
        await manager.close()
        await harness.stop()
    }

    /// A CONNECT that ends unanswered without a `connect()` waiting for it (`startConnecting()`,
    /// then the app's `disconnect()` or the session's loss) stops its deadline too. Before, only
    /// a settle with callers cancelled it, and it slept out the whole `connectTimeout`.
    @Test(arguments: ["disconnect()", "the session lost"])
    func aConnectEndedBeforeItsAnswerLeavesNoDeadlineSleeping(_ ending: String) async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let serverSaw = AsyncStream.makeStream(of: Void.self)
        let harness = try await EmbeddedHarness.start()
        harness.server.namespace("/slow").use { _ in
            serverSaw.continuation.yield()
            for await _ in gate.stream { return }
        }
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        let clock = ManualClock()
        let manager = try Self.manager(URL(string: proxy.url)!, clock, reconnection: false)
        // `/` keeps the session open while `/slow` connects (its open's timer and CONNECT
        // deadline, due at the same time, are cancelled once it is connected).
        try await withTimeout(30, "connecting /") { try await manager.socket(namespace: "/").connect() }
        let socket = manager.socket(namespace: "/slow")
        let statuses = socket.statusChanges
        socket.startConnecting()
        _ = try await serverSaw.stream.first(1, within: 30, "the server getting the CONNECT")
        try await withTimeout(30, "the CONNECT's deadline") { await clock.waitForSleeper(dueAt: Self.timeout) }
        if ending == "disconnect()" {
            socket.disconnect()
        } else {
            await proxy.cutAllAndWait()
        }
        // The deadline is cancelled before the status is published.
        _ = try await statuses.firstMatch(within: 30, "/slow disconnected") { status in
            if case .disconnected = status { return true }
            return false
        }
        #expect(!clock.sleeperDeadlines.contains(Self.timeout), "nothing sleeps until \(Self.timeout): \(clock.sleeperDeadlines)")
        gate.continuation.finish()
        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    /// `sio emit --namespace '/?x=1'`: our server reads `?x=1` as a protocol v4 CONNECT query and
    /// answers for `/`, which no socket of this client waits for. It used to hang past
    /// `--connect-timeout`; now it ends when that passes.
    @Test func aConnectAnsweredUnderAnotherNameEndsAtTheTimeout() async throws {
        let harness = try await EmbeddedHarness.start()
        let serverSaw = AsyncStream.makeStream(of: Void.self)
        harness.server.namespace("/").onConnection { _ in serverSaw.continuation.yield() }
        let clock = ManualClock()
        let manager = try Self.manager(harness.url, clock, reconnection: false)
        let socket = manager.socket(namespace: "/?x=1")
        try await Self.expectUnanswered(socket, "/?x=1", clock: clock, serverSaw: serverSaw.stream)
        await manager.close()
        await harness.stop()
    }

    /// Protocol v4 (an Engine.IO v3 session): the server connects `/` on its own, so the client
    /// sends no CONNECT for it; its accept is awaited under the same deadline. Before, no
    /// deadline was armed, and a server that never accepted (here, a hung auth hook) left
    /// `connect()` waiting for good while heartbeats kept the session open.
    @Test func protocolV4sImplicitConnectOfTheDefaultNamespaceEndsAtTheTimeout() async throws {
        let gate = AsyncStream.makeStream(of: Void.self)
        let harness = try await EmbeddedHarness.start { $0.allowEIO3 = true }
        harness.server.namespace("/").use { _ in
            for await _ in gate.stream { return }
        }
        let clock = ManualClock()
        var configuration = Manager.Configuration()
        configuration.connectTimeout = Self.timeout
        configuration.clock = clock
        configuration.reconnection = false
        configuration.version = .v3
        let manager = try Manager(url: harness.url, configuration: configuration)
        let events = manager.events
        let socket = manager.socket(namespace: "/")
        let attempt = Task { try await socket.connect() }
        // Once the session is open the open's timer, due at the same time, is cancelled: what
        // sleeps until then is the wait for `/`'s accept.
        _ = try await withTimeout(30, "the session opening") { await events.first { $0 == .open } }
        try await withTimeout(30, "the accept's timer") { await clock.waitForSleeper(dueAt: Self.timeout) }
        clock.advance(by: Self.timeout)
        await #expect {
            try await withTimeout(30, "connect() to /, which the server never accepts") { try await attempt.value }
        } throws: { error in
            guard case SocketIOError.connectionFailed(let why) = error else { return false }
            return why.hasPrefix("the server did not answer the CONNECT to namespace / within")
        }
        gate.continuation.finish()
        await manager.close()
        await harness.stop()
    }
}
