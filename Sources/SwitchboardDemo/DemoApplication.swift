public import Logging
import NIOConcurrencyHelpers
public import SocketIOServer
import SocketIOProtocol

/// The behaviour of `sio serve`: one test-and-demo server that `sio`, the tests and the python
/// peer scripts (`Tests/Peers`) share.
///
/// Its contract — namespaces, events, what each acknowledges — is ``events`` and ``namespaces``
/// (DemoContract.swift), shown by the README's "The demo server's contract" and by
/// `sio serve --help`; a test keeps the README equal to it. Every event acknowledges when the
/// client asks for an ack.
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
            answerServerQuestions(on: namespace)
        }
        installPlainWebSocket(on: server, channels: installChannels(on: server))
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
                ticker.local.emit("tick", .number(Double(count)))  // each server of a cluster ticks for its own clients
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
        onRoomEvent("join", of: socket) { socket.join($0) }
        onRoomEvent("leave", of: socket) { socket.leave($0) }
        socket.on("room-message") { event in
            guard let room = event.items.first?.stringValue else {
                event.ack?.respond(notARoom)
                return
            }
            let count = socket.namespace.to(room).emit("room-message", items: event.items)
            event.ack?.respond([.number(Double(count))])
        }
        socket.on("broadcast") { event in
            let count = socket.broadcast.emit("broadcast", items: event.items)
            event.ack?.respond([.number(Double(count))])
        }
        socket.on("server-ack") { event in
            event.ack?.respond([])
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
            event.ack?.respond([])
            Task {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                socket.emit("later", items: rest)
            }
        }
        socket.on("burst") { event in
            let count = min(max(event.items.first?.intValue ?? 0, 0), 100_000)
            for index in 0..<count { socket.emit("burst-item", .number(Double(index))) }
            socket.emit("burst-done", .number(Double(count)))
            event.ack?.respond([.number(Double(count))])
        }
        socket.on("headers") { event in
            event.ack?.respond([.object(JSONObject(socket.handshake.headers.map { ($0.key, JSONValue.string($0.value)) }))])
        }
        socket.on("kick") { event in
            event.ack?.respond([])
            socket.disconnect()
        }
        socket.on("kick-close") { event in
            event.ack?.respond([])
            socket.disconnect(close: true)
        }
        installMessages(on: socket)
        installClusterEvents(on: socket)
    }

    /// The ack of a room event (`join`, `leave`, `room-message`, `sockets-join`, `sockets-leave`)
    /// without a room name.
    static let notARoom: [JSONValue] = [["error": "the first argument must be a room name"]]

    /// Handles `event`, whose first argument names a room: `action` runs with the room, then the
    /// ack is `[room]`; without a room name nothing runs and the ack is ``notARoom``.
    static func onRoomEvent(_ event: String, of socket: ServerSocket, _ action: @escaping @Sendable (String) -> Void) {
        socket.on(event) { event in
            guard let room = event.items.first?.stringValue else {
                event.ack?.respond(notARoom)
                return
            }
            action(room)
            event.ack?.respond([.string(room)])
        }
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
