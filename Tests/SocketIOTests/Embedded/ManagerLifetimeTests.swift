import Foundation
import Harness
import NIOConcurrencyHelpers
@testable import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// What a closed manager leaves behind: nothing. A manager, its sockets and its engine are
/// deinitialised once `close()` returned and the app let go of them — an app that reconnects
/// for days must not grow with every connection it closed (it grew by ~3 KB per connection).
@Suite struct ManagerLifetimeTests {
    /// Weak references to one connection's objects.
    struct Tracked {
        weak var manager: Manager?
        weak var root: SocketIO.Socket?
        weak var chat: SocketIO.Socket?
        weak var engine: Engine?
        /// What the manager and a socket do behind their API.
        weak var managerConnection: ManagerConnection?
        weak var chatConnection: NamespaceConnection?

        var survivors: [String] {
            [("manager", manager == nil), ("socket /", root == nil), ("socket /chat", chat == nil), ("engine", engine == nil),
             ("manager's connection", managerConnection == nil), ("/chat's connection", chatConnection == nil)]
                .filter { !$0.1 }.map(\.0)
        }
    }

    /// Connects `/` (io(url)) and `/chat` on one manager, one acknowledged echo each, listeners
    /// and streams of every kind, then closes; returns weak references only.
    static func cycle(_ url: URL, transports: [EngineTransportKind]) async throws -> Tracked {
        var options = Manager.Configuration()
        options.transports = transports
        let configuration = options
        let root = try await withTimeout(10, "io") { try await io(url, configuration: configuration) }
        let manager = root.io
        let chat = manager.socket(namespace: "/chat", auth: .static(["token": "secret"]))
        chat.on("message") { _ in }
        root.onAny { _ in }
        let events = root.events(named: "anything")
        let statuses = chat.statusChanges
        try await withTimeout(10, "connect /chat") { try await chat.connect() }
        #expect(try await root.emitWithAck("echo", "x") == ["x"])
        #expect(try await chat.emitWithAck("ack", "y") == ["y"])
        var tracked = Tracked()
        tracked.manager = manager
        tracked.root = root
        tracked.chat = chat
        tracked.engine = manager.connection.inner.withLockedValue { $0.engine }
        tracked.managerConnection = manager.connection
        tracked.chatConnection = chat.connection
        #expect(tracked.engine != nil)
        await manager.close()
        _ = (events, statuses)
        return tracked
    }

    @Test("after close(), the manager, both sockets and the engine are deinitialised", arguments: [
        [EngineTransportKind.websocket], [.polling], [.polling, .websocket],
    ])
    func closedConnectionIsReleased(_ transports: [EngineTransportKind]) async throws {
        let harness = try await EmbeddedHarness.start()
        let tracked = try await Self.cycle(harness.url, transports: transports)
        #expect(tracked.survivors.isEmpty, "still alive after close(): \(tracked.survivors)")
        await harness.stop()
    }

    /// What an app that never called `close()` keeps of a socket and its manager once it lets
    /// go of both: the streams end when the objects holding them are deinitialised.
    struct Dropped {
        weak var manager: Manager?
        weak var socket: SocketIO.Socket?
        let statuses: AsyncStream<SocketStatus>
        let events: AsyncStream<ManagerEvent>

        /// Returns once the socket's connection and the manager's are deinitialised (their
        /// observers end the streams); ``TestTimeout`` when they stay.
        func freed() async throws {
            let (statuses, events) = (statuses, events)
            try await withTimeout(10, "the socket's connection deinitialised") { for await _ in statuses {} }
            try await withTimeout(10, "the manager's connection deinitialised") { for await _ in events {} }
        }
    }

    /// Reconnection off: a connection the server's side lost (here cut by a proxy) leaves the
    /// socket disconnected for good. An at-least-once emit waiting for its ack hears it, and the
    /// manager lets go of the socket, so an app that drops both without `close()` frees them.
    /// Before, the emit waited forever (its try failed, a retry was left, and no reconnection was
    /// coming), and the manager held the socket, which holds the manager: nothing was freed.
    @Test func aLostConnectionWithoutReconnectionLetsGoOfTheSocket() async throws {
        let harness = try await EmbeddedHarness.start()
        let held = AsyncStream.makeStream(of: Void.self)
        harness.server.namespace("/").onConnection { socket in
            socket.on("hold") { _ in held.continuation.yield() }  // never acknowledged
        }
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        var configuration = Manager.Configuration.quickReconnect()
        configuration.reconnection = false
        configuration.retries = 1
        let dropped = try await Self.connectThenLose(URL(string: proxy.url)!, configuration) { socket in
            let emit = Task { try await socket.emitWithAck("hold", "x", timeout: .seconds(60)) }
            _ = try await held.stream.first(1, within: 10, "the server holding the emit")
            await proxy.cutAllAndWait()
            await #expect {
                try await withTimeout(10, "the at-least-once emit's answer") { try await emit.value }
            } throws: { error in
                guard case SocketIOError.disconnected = error else { return false }
                return true
            }
        }
        try await dropped.freed()
        #expect(dropped.manager == nil)
        #expect(dropped.socket == nil)
        await proxy.stop()
        await harness.stop()
    }

    /// Reconnection off: a `connect()` whose session never opens fails, and the manager lets go
    /// of the socket (before, it held it, and the app's dropped socket and manager stayed).
    @Test func aFailedConnectWithoutReconnectionLetsGoOfTheSocket() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        proxy.refuseNewConnections(true)
        var configuration = Manager.Configuration.quickReconnect()
        configuration.reconnection = false
        let dropped = try await Self.connectThenLose(URL(string: proxy.url)!, configuration, connects: false) { _ in }
        try await dropped.freed()
        #expect(dropped.manager == nil)
        #expect(dropped.socket == nil)
        await proxy.stop()
        await harness.stop()
    }

    /// Reconnection on: the connection is lost, and the reconnection's handshake is refused (the
    /// server came back behind an auth check answering 401). The manager stops; the socket hears
    /// it (`connect_error`), stops waiting, its at-least-once emit made while it waited fails,
    /// and the manager lets go of it. Before, the socket stayed active and held, waiting for a
    /// reconnection that would never come, and so did the emit.
    @Test func aRefusedReconnectionLetsGoOfTheSocket() async throws {
        // Below the ephemeral range, so no other test's server takes the port while it is free.
        let first = try await TestPorts.start { try await EmbeddedHarness.start(port: $0) }
        var configuration = Manager.Configuration.quickReconnect(transport: .polling)
        configuration.retries = 1
        let (dropped, refusing) = try await Self.refusedReconnection(first, configuration)
        try await dropped.freed()
        #expect(dropped.manager == nil)
        #expect(dropped.socket == nil)
        await refusing.stop()
    }

    /// Connects `/` on `first`, stops it, emits while the socket waits to reconnect, and answers
    /// the reconnection with the refusing server; returns weak references only, and that server.
    static func refusedReconnection(_ first: EmbeddedHarness, _ configuration: Manager.Configuration) async throws -> (Dropped, ScriptedHTTPServer) {
        let manager = try Manager(url: first.url, configuration: configuration)
        let socket = manager.socket()
        let statuses = socket.statusChanges
        let errors = socket.events(named: "connect_error")
        try await withTimeout(10, "connect") { try await socket.connect() }
        await first.stop()
        _ = try await statuses.firstMatch(within: 10, "disconnected") { status in
            if case .disconnected = status { return true }
            return false
        }
        #expect(socket.active, "waiting to reconnect")
        let emit = Task { try await socket.emitWithAck("work", ["id": 1], timeout: .seconds(60)) }
        let refusing = try await TestPorts.restart(on: first.port) { try await ScriptedHTTPServer.start(port: $0) }
        let error = try await errors.first(1, within: 10, "connect_error")
        #expect(error.first?.items.first == "not allowed")
        await #expect {
            try await withTimeout(10, "the at-least-once emit's answer") { try await emit.value }
        } throws: { error in
            guard case SocketIOError.connectError(let message, _) = error else { return false }
            return message == "not allowed"
        }
        #expect(!socket.active, "no reconnection is coming")
        return (Dropped(manager: manager, socket: socket, statuses: statuses, events: manager.events), refusing)
    }

    /// Connects `/` on a new manager (or, with `connects` false, expects `connect()` to fail),
    /// runs `lose` with the socket, waits for the socket to be disconnected, and returns weak
    /// references only.
    static func connectThenLose(
        _ url: URL, _ configuration: Manager.Configuration, connects: Bool = true,
        _ lose: (SocketIO.Socket) async throws -> Void
    ) async throws -> Dropped {
        let manager = try Manager(url: url, configuration: configuration)
        let socket = manager.socket()
        let statuses = socket.statusChanges
        if connects {
            try await withTimeout(10, "connect") { try await socket.connect() }
        } else {
            await #expect(throws: SocketIOError.self) { try await withTimeout(10, "connect") { try await socket.connect() } }
        }
        try await lose(socket)
        _ = try await statuses.firstMatch(within: 10, "disconnected") { status in
            if case .disconnected = status { return true }
            return false
        }
        #expect(!socket.active, "no reconnection is coming")
        return Dropped(manager: manager, socket: socket, statuses: statuses, events: manager.events)
    }

    @Test("50 connect/close cycles leave nothing of any of them behind")
    func manyCyclesLeaveNothing() async throws {
        let harness = try await EmbeddedHarness.start()
        var survivors: [String] = []
        for round in 0..<50 {
            let tracked = try await Self.cycle(harness.url, transports: [.websocket])
            survivors += tracked.survivors.map { "round \(round): \($0)" }
        }
        #expect(survivors.isEmpty, "\(survivors.prefix(8))")
        await harness.stop()
    }
}
