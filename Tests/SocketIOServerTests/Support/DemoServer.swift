import Foundation
import Logging
import ServiceLifecycle
import SocketIOServer
import SwitchboardDemo

/// A started server with `sio serve`'s demo application (``DemoApplication``, the README's
/// contract table): `/`, `/chat` (auth token `secret`, refused with
/// `{"message":"unauthorized","data":{"reason":"bad token"}}`) and the plain WebSocket `/ws`;
/// Tests/Peers/client_v5.py expects the same. The ticker is not started.
struct DemoServer: Sendable {
    let server: SocketIOServer
    let port: Int
    let events: EventLog
    private let stopServer: @Sendable () async -> Void

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts a server; `installingDemo: false` leaves it bare (the server's own defaults, such
    /// as `/ws` echoing every message). `mounted` serves it from a Hummingbird application of
    /// the test's own (``SocketIOServer/httpServer()``) instead of ``SocketIOServer/start(host:port:)``.
    static func start(
        _ configure: (inout SocketIOServer.Configuration) -> Void = { _ in },
        installingDemo: Bool = true,
        mounted: Bool = false,
        setup: (SocketIOServer) -> Void = { _ in }
    ) async throws -> DemoServer {
        var configuration = SocketIOServer.Configuration()
        configure(&configuration)
        var logger = Logger(label: "test.server")
        logger.logLevel = ProcessInfo.processInfo.environment["SERVER_LOG"] == "1" ? .trace : .critical
        let server = SocketIOServer(configuration: configuration, logger: logger)
        let events = EventLog()
        if installingDemo { DemoApplication.install(on: server, logger: logger).cancel() }
        server.onConnectionEvent { events.record($0) }  // replaces the demo's connection log
        setup(server)
        if mounted {
            let app = try await MountedApp.start(server)
            return DemoServer(server: server, port: app.port, events: events) {
                await app.group.triggerGracefulShutdown()
                _ = await app.run.result
            }
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        return DemoServer(server: server, port: running.port, events: events) { await running.stop() }
    }

    /// Starts a server, runs `body` with it, and stops it (also when `body` throws).
    static func with<T: Sendable>(
        _ configure: (inout SocketIOServer.Configuration) -> Void = { _ in },
        installingDemo: Bool = true,
        mounted: Bool = false,
        setup: (SocketIOServer) -> Void = { _ in },
        _ body: (DemoServer) async throws -> T
    ) async throws -> T {
        let demo = try await start(configure, installingDemo: installingDemo, mounted: mounted, setup: setup)
        do {
            let result = try await body(demo)
            await demo.stop()
            return result
        } catch {
            await demo.stop()
            throw error
        }
    }

    func stop() async {
        await stopServer()
    }

    /// Proves the server still serves: a new WebSocket session joins `/` and gets an echo.
    func assertServes() async throws {
        let client = try await EngineWebSocket.open(port: port)
        defer { client.socket.drop() }
        _ = try await client.connect()
        try client.send(#"42["echo","still here"]"#)
        var echo = try await client.next("the echo")
        while echo == "2" {  // a short heartbeat may ping first
            try client.send("3")
            echo = try await client.next("the echo")
        }
        guard echo == #"42["echo","still here"]"# else { throw UnexpectedMessage(expected: "echo", got: .text(echo)) }
    }
}
