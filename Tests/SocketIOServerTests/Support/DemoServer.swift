import Foundation
import Logging
import SocketIOServer
import SwitchboardDemo

/// A started server with `sio serve`'s demo application (``DemoApplication``, the README's
/// contract table): `/`, `/chat` (auth token `secret`, refused with
/// `{"message":"unauthorized","data":{"reason":"bad token"}}`) and the plain WebSocket `/ws`;
/// Tests/Peers/client_v5.py expects the same. The ticker is not started.
struct DemoServer: Sendable {
    let server: SocketIOServer
    let running: RunningServer
    let events: EventLog

    var port: Int { running.port }
    var url: URL { running.url }

    /// Starts a server; `installingDemo: false` leaves it bare (the server's own defaults, such
    /// as `/ws` echoing every message).
    static func start(
        _ configure: (inout SocketIOServer.Configuration) -> Void = { _ in },
        installingDemo: Bool = true,
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
        let running = try await server.start(host: "127.0.0.1", port: 0)
        return DemoServer(server: server, running: running, events: events)
    }

    /// Starts a server, runs `body` with it, and stops it (also when `body` throws).
    static func with<T: Sendable>(
        _ configure: (inout SocketIOServer.Configuration) -> Void = { _ in },
        installingDemo: Bool = true,
        setup: (SocketIOServer) -> Void = { _ in },
        _ body: (DemoServer) async throws -> T
    ) async throws -> T {
        let demo = try await start(configure, installingDemo: installingDemo, setup: setup)
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
        await running.stop()
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
