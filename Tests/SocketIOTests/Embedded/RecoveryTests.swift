import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
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

        var configuration = Manager.Configuration()
        configuration.transports = [transport]
        configuration.connectTimeout = .seconds(10)
        if ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_LOG"] == "1" {
            var logger = Logger(label: "test.client") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .trace
            configuration.logger = logger
        }
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let socket = manager.socket()
        let news = socket.events(named: "news")
        let echoes = socket.events(named: "echo")
        let clientDisconnects = socket.events(named: "disconnect")
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

        proxy.refuseNewConnections(false)

        // Emitted while the client is away: the server keeps them for the session.
        for index in 0..<50 { server.namespace("/").emit("news", .number(Double(index))) }

        try await withTimeout(30, "reconnect") { try await socket.connect() }
        #expect(socket.recovered, "the server restored the session")
        #expect(socket.id == firstID, "a recovered session keeps its id")
        let missed = try await news.first(50, within: 30, "the missed events")
        #expect(missed.map { $0.items } == (0..<50).map { [JSONValue.number(Double($0))] },
                "every missed event exactly once, in order, without the offset")

        // Exactly once: a marker sent after the replay is the very next news event.
        server.namespace("/").emit("news", "marker")
        let next = try await news.first(1)
        #expect(next.first?.items == ["marker"])

        await manager.close()
        await proxy.stop()
        await running.stop()
    }
}
