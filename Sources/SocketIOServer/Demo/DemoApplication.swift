public import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol

/// The behaviour of `sio serve`: a test-and-demo server other clients can rely on.
///
/// Namespaces `/` and `/chat` (which requires the auth payload `{"token":"secret"}`, refusing
/// others with `connect_error` `unauthorized` and data `{"reason":"bad token"}`) answer:
///
/// | event | what the server does |
/// |---|---|
/// | `echo` …args | emits `echo` with the same args to the sender, and acks them if asked |
/// | `ack` …args | acks the same args |
/// | `binary` …args | like `echo` (attachments included) |
/// | `join` room / `leave` room | joins / leaves the room, acks with the room |
/// | `room-message` room, …args | emits `room-message` with (room, …args) to the room, sender included |
/// | `broadcast` …args | emits `broadcast` with the args to the whole namespace |
/// | `server-ack` …args | asks the sender for an ack of `server-ack` (5 s), then emits `server-ack-result` with its items, or `{"error":"timeout"}` |
/// | `later` ms, …args | emits `later` with the args after ms milliseconds |
/// | `burst` n | emits `burst-item` 0…n-1, then `burst-done` n |
/// | `headers` | acks with the connection's HTTP request headers |
/// | `kick` | disconnects the sender from the namespace (`io server disconnect`) |
///
/// The plain WebSocket endpoint `/ws` serves the same events in the JSON envelope (see
/// `installPlainWebSocket(on:)`).
///
/// `/ticker` broadcasts `tick` with 1, 2, 3, … every 20 ms whether or not anyone listens; with
/// connection state recovery on, a reconnecting listener sees an unbroken sequence.
public enum DemoApplication {
    /// The token `/chat` requires.
    public static let chatToken = "secret"

    /// The server configuration `sio serve` uses: connection state recovery on.
    public static var configuration: SocketIOServer.Configuration {
        var configuration = SocketIOServer.Configuration()
        configuration.recovery = .enabled()
        return configuration
    }

    /// Installs the demo namespaces and a one-line-per-connection log on `server`, and starts
    /// the ticker. Cancel the returned task to stop ticking.
    @discardableResult
    public static func install(
        on server: SocketIOServer, logger: Logger, tickInterval: Duration = .milliseconds(20)
    ) -> Task<Void, Never> {
        for name in ["/", "/chat"] {
            let namespace = server.namespace(name)
            if name == "/chat" {
                namespace.use { handshake in
                    guard handshake.auth?["token"] == .string(chatToken) else {
                        throw ConnectionRefused(message: "unauthorized", data: ["reason": "bad token"])
                    }
                }
            }
            namespace.onConnection { socket in installEvents(on: socket) }
        }
        installPlainWebSocket(on: server)
        logConnections(of: server, to: logger)
        let ticker = server.namespace("/ticker")
        return Task {
            var count = 0
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: tickInterval)
                } catch {
                    return
                }
                count += 1
                ticker.emit("tick", .number(Double(count)))
            }
        }
    }

    static func installEvents(on socket: ServerSocket) {
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
        socket.on("join") { event in
            guard let room = event.items.first?.stringValue else { return }
            socket.join(room)
            event.ack?.respond([.string(room)])
        }
        socket.on("leave") { event in
            guard let room = event.items.first?.stringValue else { return }
            socket.leave(room)
            event.ack?.respond([.string(room)])
        }
        socket.on("room-message") { event in
            guard let room = event.items.first?.stringValue else { return }
            let count = socket.namespace.to(room).emit("room-message", items: event.items)
            event.ack?.respond([.number(Double(count))])
        }
        socket.on("broadcast") { event in
            let count = socket.namespace.all.emit("broadcast", items: event.items)
            event.ack?.respond([.number(Double(count))])
        }
        socket.on("server-ack") { event in
            Task {
                do {
                    let reply = try await socket.emitWithAck("server-ack", items: event.items, timeout: .seconds(5))
                    socket.emit("server-ack-result", items: reply)
                } catch {
                    socket.emit("server-ack-result", ["error": "timeout"])
                }
            }
        }
        socket.on("later") { event in
            let milliseconds = max(event.items.first?.intValue ?? 0, 0)
            let rest = Array(event.items.dropFirst())
            Task {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                socket.emit("later", items: rest)
            }
        }
        socket.on("burst") { event in
            let count = min(max(event.items.first?.intValue ?? 0, 0), 100_000)
            for index in 0..<count { socket.emit("burst-item", .number(Double(index))) }
            socket.emit("burst-done", .number(Double(count)))
        }
        socket.on("headers") { event in
            event.ack?.respond([.object(JSONObject(socket.handshake.headers.map { ($0.key, JSONValue.string($0.value)) }))])
        }
        socket.on("kick") { _ in
            socket.disconnect()
        }
        installMessages(on: socket)
    }

    /// One log line per connection: protocol version, transport, recovered.
    static func logConnections(of server: SocketIOServer, to logger: Logger) {
        let transports = NIOLockedValueBox<[String: String]>([:])
        server.onConnectionEvent { event in
            switch event {
            case .sessionOpened(let sid, let transport, _):
                transports.withLockedValue { $0[sid] = transport.rawValue }
            case .sessionUpgraded(let sid):
                transports.withLockedValue { $0[sid] = "websocket" }
            case .sessionClosed(let sid, _):
                _ = transports.withLockedValue { $0.removeValue(forKey: sid) }
            case .socketConnected(let namespace, let id, let sid, let recovered):
                let transport = transports.withLockedValue { $0[sid] } ?? "?"
                logger.info("connection", metadata: [
                    "socketio.nsp": "\(namespace)", "socketio.id": "\(id)", "socketio.protocol": "EIO4/SIO5",
                    "socketio.transport": "\(transport)", "socketio.recovered": "\(recovered)",
                ])
            case .socketRefused, .socketDisconnected, .plainWebSocketOpened, .plainWebSocketClosed:
                return
            }
        }
    }
}
