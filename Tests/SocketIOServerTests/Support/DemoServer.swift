import Foundation
import Logging
import SocketIOServer

/// A started server with the handlers the tests (and Tests/Peers/client_v5.py) expect, on
/// `/`, `/chat` (which greets with `welcome` after connecting) and `/secure` (auth token
/// `secret`, refused with `{"message":"unauthorized","data":{"reason":"bad token"}}`).
struct DemoServer: Sendable {
    let server: SocketIOServer
    let running: RunningServer
    let events: EventLog

    var port: Int { running.port }
    var url: URL { running.url }

    static func start(
        _ configure: (inout SocketIOServer.Configuration) -> Void = { _ in },
        setup: (SocketIOServer) -> Void = { _ in }
    ) async throws -> DemoServer {
        var configuration = SocketIOServer.Configuration()
        configure(&configuration)
        var logger = Logger(label: "test.server")
        logger.logLevel = ProcessInfo.processInfo.environment["SERVER_LOG"] == "1" ? .trace : .critical
        let server = SocketIOServer(configuration: configuration, logger: logger)
        let events = EventLog()
        server.onConnectionEvent { events.record($0) }
        installDemoHandlers(on: server)
        setup(server)
        let running = try await server.start(host: "127.0.0.1", port: 0)
        return DemoServer(server: server, running: running, events: events)
    }

    /// Starts a server, runs `body` with it, and stops it (also when `body` throws).
    static func with<T: Sendable>(
        _ configure: (inout SocketIOServer.Configuration) -> Void = { _ in },
        setup: (SocketIOServer) -> Void = { _ in },
        _ body: (DemoServer) async throws -> T
    ) async throws -> T {
        let demo = try await start(configure, setup: setup)
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

/// The demo behaviour, shared by every namespace.
func installDemoHandlers(on server: SocketIOServer) {
    for name in ["/", "/chat", "/secure"] {
        let namespace = server.namespace(name)
        if name == "/secure" {
            namespace.use { handshake in
                guard handshake.auth?["token"] == "secret" else {
                    throw ConnectionRefused(message: "unauthorized", data: ["reason": "bad token"])
                }
            }
        }
        namespace.onConnection { socket in
            installDemoEvents(on: socket)
            if name == "/chat" { socket.emit("welcome", "hi") }
        }
    }
}

func installDemoEvents(on socket: ServerSocket) {
    socket.on("echo") { event in
        socket.emit("echo", items: event.items)
        event.ack?.respond(event.items)
    }
    socket.on("ack") { event in
        event.ack?.respond(event.items)
    }
    socket.on("binary") { event in
        socket.emit("binary", items: event.items)
        event.ack?.respond(event.items)
    }
    socket.on("server-ack") { event in
        Task {
            do {
                let reply = try await socket.emitWithAck("server-ack", items: event.items, timeout: .seconds(5))
                socket.emit("server-ack-result", items: reply)
            } catch {
                socket.emit("server-ack-result", ["error": .string("\(error)")])
            }
        }
    }
    socket.on("join") { event in
        guard let room = event.items.first?.stringValue else { return }
        socket.join(room)
        event.ack?.respond(["joined", .string(room)])
    }
    socket.on("leave") { event in
        guard let room = event.items.first?.stringValue else { return }
        socket.leave(room)
        event.ack?.respond(["left", .string(room)])
    }
    socket.on("to-room") { event in
        guard let room = event.items.first?.stringValue else { return }
        let count = socket.to(room).emit("room-message", items: Array(event.items.dropFirst()))
        event.ack?.respond([.number(Double(count))])
    }
    socket.on("broadcast") { event in
        let count = socket.broadcast.emit("broadcast", items: event.items)
        event.ack?.respond([.number(Double(count))])
    }
    socket.on("burst") { event in
        let count = event.items.first?.intValue ?? 0
        for index in 0..<count { socket.emit("burst-item", .number(Double(index))) }
        socket.emit("burst-done", .number(Double(count)))
    }
    socket.on("kick") { _ in
        socket.disconnect()
    }
    socket.on("kick-close") { _ in
        socket.disconnect(close: true)
    }
    socket.on("headers") { event in
        event.ack?.respond([.object(JSONObject(socket.handshake.headers.map { ($0.key, JSONValue.string($0.value)) }))])
    }
}
