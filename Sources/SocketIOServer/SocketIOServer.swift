@_exported public import SocketIOProtocol
public import Logging
import NIOConcurrencyHelpers
import NIOPosix
import SwitchboardCore

/// An embedded Socket.IO server (Engine.IO v4: HTTP long-polling, WebSocket and the upgrade
/// between them; Socket.IO v5: namespaces, events, acks both ways, binary, rooms, broadcast,
/// auth hooks, connection state recovery), plus a plain WebSocket endpoint, on Hummingbird.
///
/// ```swift
/// let server = SocketIOServer(configuration: .init(recovery: .enabled()), logger: logger)
/// let chat = server.namespace("/chat")
/// chat.use { handshake in
///     guard handshake.auth?["token"] == "secret" else {
///         throw ConnectionRefused(message: "unauthorized", data: ["reason": "bad token"])
///     }
/// }
/// chat.onConnection { socket in
///     socket.on("echo") { event in
///         socket.emit("echo", items: event.items)
///         event.ack?.respond(event.items)
///     }
///     socket.onDisconnect { reason in logger.info("\(socket.id) left: \(reason)") }
/// }
/// let running = try await server.start(host: "127.0.0.1", port: 0)
/// print("listening on", running.port)
/// // …
/// await running.stop()
/// ```
///
/// Clients join namespaces the app created with ``namespace(_:)``; others get
/// `44/<nsp>,{"message":"Invalid namespace"}`. Every method is safe from any thread; nothing
/// global is locked while bytes are written, and each connection has its own bounded queue, so a
/// slow or vanished client never stalls the others.
public final class SocketIOServer: Sendable {
    /// The configuration the server was made with.
    public let configuration: Configuration
    let core: ServerCore
    let lifecycle = NIOLockedValueBox(Lifecycle())

    /// A server with `configuration`, logging to `logger` (silent by default).
    public init(
        configuration: Configuration = Configuration(),
        logger: Logger? = nil
    ) {
        let logger = logger ?? .disabled("switchboard.server")
        self.configuration = configuration
        let environment = ServerEnvironment(
            configuration: configuration,
            // Deadlines (heartbeats, acks, recovery windows) as the event loops' timers with the
            // real clock: no task sleeping per session.
            clock: Timeline(configuration.clock, scheduler: { delay, action in
                Timeline.eventLoopScheduler(MultiThreadedEventLoopGroup.singleton.next())(delay, action)
            }),
            logger: logger,
            events: ConnectionEventHook()
        )
        self.core = ServerCore(environment: environment)
        Self.live.add(self)
    }

    deinit {
        Self.live.remove(ObjectIdentifier(self))
    }

    /// The namespace called `name` (`/` by default), made on first use. Make every namespace
    /// clients may join, and set up its hooks, before starting the server.
    public func namespace(_ name: String = "/") -> Namespace {
        core.namespaces.namespace(name)
    }

    /// Handles connections to the plain WebSocket endpoint (by default each message is echoed).
    /// The connection closes when `handler` returns.
    public func onPlainWebSocket(_ handler: @escaping @Sendable (PlainWebSocketConnection) async throws -> Void) {
        core.plain.setHandler(handler)
    }

    /// Calls `handler` for every connection event (a session opened, a socket joined, …): one
    /// line each for a server log.
    public func onConnectionEvent(_ handler: @escaping @Sendable (ConnectionEvent) -> Void) {
        core.environment.events.set(handler)
    }

    /// How many Engine.IO sessions are open.
    public var sessionCount: Int { core.sessions.count }
}
