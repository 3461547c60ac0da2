import Foundation
import Harness
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardDemo
import SwitchboardTestSupport
import Testing

/// Connection state recovery, end to end: our client against the embedded server, the
/// connection cut at the TCP level by a proxy.
@Suite("Connection state recovery")
struct RecoveryTests {
    @Test(arguments: [EngineTransportKind.websocket, .polling])
    func missedEventsArriveExactlyOnceInOrderAfterATransportCut(_ transport: EngineTransportKind) async throws {
        // A short heartbeat: over polling, the server notices a cut connection by ping timeout.
        var serverConfiguration = DemoApplication.configuration
        serverConfiguration.pingInterval = .seconds(2)
        serverConfiguration.pingTimeout = .seconds(8)
        let server = SocketIOServer(configuration: serverConfiguration,
                                    logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        DemoApplication.install(on: server, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }).cancel()
        let disconnects = AsyncStream<Void>.makeStream()
        server.onConnectionEvent { event in
            if case .socketDisconnected = event { disconnects.continuation.yield() }
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        let proxy = try await FaultProxy.start(upstreamPort: running.port)

        let configuration = Manager.Configuration.quickReconnect(transport: transport)
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let socket = manager.socket()
        let news = socket.events(named: "news")
        let echoes = socket.events(named: "echo")
        let clientDisconnects = socket.events(named: "disconnect")
        let connects = socket.events(named: "connect")
        try await withTimeout(30, "connect") { try await socket.connect() }
        #expect(!socket.recovered)
        let firstID = socket.id

        // One event received, so the client has an offset to resume from.
        try socket.emit("echo", "before")
        _ = try await echoes.first(1, within: 30, "the echo")

        // An outage: existing connections cut and new ones refused until both sides notice
        // (over polling, a cut between two requests alone is invisible: the next GET simply
        // opens a new TCP connection).
        proxy.refuseNewConnections(true)
        proxy.cutAll()
        _ = try await disconnects.stream.first(1, within: 30, "the server noticing the cut")
        let reason = try await clientDisconnects.first(1, within: 30, "the client noticing the cut")
        #expect(reason.first?.items.first?.stringValue.map { ["transport close", "transport error", "ping timeout"].contains($0) } == true,
                "a cut is a transport-level (recoverable) disconnect")

        // Emitted while the client is away (it keeps trying; the proxy refuses): the server
        // keeps them for the session.
        for index in 0..<500 { server.namespace("/").emit("news", .number(Double(index))) }
        proxy.refuseNewConnections(false)

        // The client reconnects by itself.
        _ = try await connects.first(2, within: 30, "the first connect, then the reconnect")
        #expect(socket.recovered, "the server restored the session")
        #expect(socket.id == firstID, "a recovered session keeps its id")
        let missed = try await news.first(500, within: 30, "the missed events")
        #expect(missed.map { $0.items } == (0..<500).map { [JSONValue.number(Double($0))] },
                "every missed event exactly once, in order, without the offset")

        // Exactly once: a marker sent after the replay is the very next news event.
        server.namespace("/").emit("news", "marker")
        let next = try await news.first(1)
        #expect(next.first?.items == ["marker"])

        await manager.close()
        await proxy.stop()
        await running.stop()
    }

    @Test func afterTheServersWindowTheSessionIsNewAndTheAppIsTold() async throws {
        let clock = ManualClock()
        let window = Duration.seconds(7)
        let harness = try await EmbeddedHarness.start {
            $0.clock = clock
            $0.recovery = ConnectionStateRecovery(maxDisconnectionDuration: window)
        }
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: .quickReconnect())
        let socket = manager.socket()
        let echoes = socket.events(named: "echo")
        let connects = socket.events(named: "connect")
        let disconnects = socket.events(named: "disconnect")
        try await withTimeout(20, "connect") { try await socket.connect() }
        let firstID = socket.id
        try socket.emit("echo", "before")
        _ = try await echoes.first(1, within: 20, "the echo (an offset to resume from)")

        proxy.refuseNewConnections(true)
        proxy.cutAll()
        _ = try await disconnects.first(1, within: 20, "the cut")
        // The server keeps the session for `window` on its (test) clock, then forgets it.
        _ = try await withTimeout(20, "the server's expiry timer") { await clock.waitForSleep(1) { $0 == window } }
        clock.advance(by: window + .seconds(1))
        proxy.refuseNewConnections(false)

        _ = try await connects.first(2, within: 30, "the reconnect")
        #expect(!socket.recovered, "too late: the app is told the session is new and must resynchronise")
        #expect(socket.id != firstID)
        await manager.close()
        await proxy.stop()
        await harness.stop()
    }
}
