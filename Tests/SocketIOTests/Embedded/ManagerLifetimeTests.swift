import Foundation
import NIOConcurrencyHelpers
@testable import SocketIO
import SocketIOProtocol
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
