import NIOConcurrencyHelpers
import SwitchboardCore
public import SocketIOProtocol

/// One client connected to one namespace: receive its events, emit to it, put it in rooms.
///
/// ```swift
/// chat.onConnection { socket in
///     socket.on("echo") { event in
///         socket.emit("echo", items: event.items)
///         event.ack?.respond(event.items)
///     }
///     socket.onDisconnect { reason in print(socket.id, "left:", reason) }
///     // In a task of its own: the client's ack is read once the connection handler returns.
///     Task { let reply = try? await socket.emitWithAck("ping", "are you there?", timeout: .seconds(5)) }
/// }
/// ```
///
/// Every method is safe from any thread. Handlers run on the connection's own task, one event
/// at a time and in the order the client sent them, never while a lock is held; a handler that
/// needs to wait should start its own task (a connection handler too: the connection reads
/// nothing, acks and heartbeats included, until it returns). Emits never block: they queue for the client (see
/// ``SocketIOServer/Configuration/maxQueuedBytes``).
public final class ServerSocket: Sendable {

    struct State {
        var listeners = ListenerRegistry<ServerEvent>()
        /// In the order added; the one of an ``ServerSocket/events(named:)`` stream carries the
        /// id of the stream's listener, so ending the stream removes both.
        var disconnectHandlers: [(stream: Int?, handler: @Sendable (ServerDisconnectReason) -> Void)] = []
        var nextAckID = 0
        /// Set once the socket left its namespace.
        var disconnectReason: ServerDisconnectReason?
        /// Set once the app is told the socket connected (``ConnectionEvent/socketConnected``):
        /// only then is it told the socket left.
        var announced = false
        var data: JSONObject
    }

    /// The socket id (socket.io's `socket.id`); the same after a recovery.
    public let id: String
    /// The namespace the socket belongs to.
    public let namespace: Namespace
    /// The CONNECT payload and the request that opened the connection.
    public let handshake: SocketHandshake
    /// Whether this connection got a dropped session back (connection state recovery): same
    /// id, rooms and ``data``, and the client was sent the events it missed.
    public let recovered: Bool
    /// The private session id (recovery on), sent to the client only.
    let pid: String?
    let outbox: SocketOutbox
    let client: ClientConnection
    let state: NIOLockedValueBox<State>
    /// `emitWithAck` callers waiting for the client's ack, by ack id.
    let pendingAcks = PendingReplies<Int, [JSONValue], SocketIOServerError>()

    init(
        id: String,
        pid: String?,
        namespace: Namespace,
        handshake: SocketHandshake,
        recovered: Bool,
        data: JSONObject,
        outbox: SocketOutbox,
        client: ClientConnection
    ) {
        self.id = id
        self.pid = pid
        self.namespace = namespace
        self.handshake = handshake
        self.recovered = recovered
        self.outbox = outbox
        self.client = client
        self.state = NIOLockedValueBox(State(data: data))
    }

    /// The Engine.IO session id of the connection (shared by the client's namespaces).
    public var sid: String { client.session.sid }

    /// Whether the socket is still in its namespace.
    public var connected: Bool { disconnectReason == nil }

    /// Why the socket left its namespace, once it has.
    public var disconnectReason: ServerDisconnectReason? { state.withLockedValue { $0.disconnectReason } }

    /// App data kept with the socket (and restored with it on recovery).
    public var data: JSONObject {
        get { state.withLockedValue { $0.data } }
        set {
            state.withLockedValue { $0.data = newValue }
            namespace.sessionChanged(id)
        }
    }

    // MARK: - Rooms

    /// The rooms the socket is in (always including the room named by its id).
    public var rooms: Set<String> { namespace.rooms(of: id) }

    /// Joins `room`.
    public func join(_ room: String) {
        namespace.join(id, rooms: [room])
    }

    /// Joins every room in `rooms`.
    public func join(_ rooms: some Sequence<String>) {
        namespace.join(id, rooms: rooms)
    }

    /// Leaves `room`.
    public func leave(_ room: String) {
        namespace.leave(id, room: room)
    }

    /// Every other socket of the namespace.
    public var broadcast: BroadcastOperator { BroadcastOperator(namespace: namespace, excluding: id) }

    /// The sockets in `room`, except this one.
    public func to(_ room: String) -> BroadcastOperator { broadcast.to(room) }

    /// Every other socket not in `room`.
    public func except(_ room: String) -> BroadcastOperator { broadcast.except(room) }

    // MARK: - Disconnecting

    /// Removes the socket from its namespace: the client gets DISCONNECT (`41/<nsp>,`, its
    /// `io server disconnect`). With `close: true` every namespace of the client is
    /// disconnected and its connection closed.
    public func disconnect(close: Bool = false) {
        if close {
            client.disconnectAll()
            return
        }
        guard connected else { return }
        outbox.deliver(EngineFrame.frames(of: SocketPacket(kind: .disconnect, namespace: namespace.name)), offset: nil)
        finish(.serverNamespaceDisconnect)
    }

    /// The socket left its namespace: forgets it (or keeps it for recovery), fails the acks it
    /// owes, tells the app (``ConnectionEvent/socketDisconnected`` only if it was told the
    /// socket connected). Returns `false` when it had already left.
    @discardableResult
    func finish(_ reason: ServerDisconnectReason) -> Bool {
        let left: (handlers: [@Sendable (ServerDisconnectReason) -> Void], announced: Bool)? = state.withLockedValue { state in
            guard state.disconnectReason == nil else { return nil }
            state.disconnectReason = reason
            defer {
                // Handlers usually capture the socket: dropping them breaks the cycle.
                state.listeners = ListenerRegistry<ServerEvent>()
                state.disconnectHandlers.removeAll()
            }
            return (state.disconnectHandlers.map(\.handler), state.announced)
        }
        guard let left else { return false }
        client.remove(self)
        namespace.remove(self, reason: reason)
        pendingAcks.failAll(with: .disconnected(reason))
        if left.announced { namespace.environment.events.emit(.socketDisconnected(namespace: namespace.name, id: id, reason: reason)) }
        for handler in left.handlers { handler(reason) }
        return true
    }

    /// The client's packets reach the socket now: it is reported connected, unless it left
    /// meanwhile (`false`; a socket whose connection closed, or that was disconnected, while it
    /// was being made is undone without a word, connected or disconnected).
    func announce() -> Bool {
        state.withLockedValue { state in
            guard state.disconnectReason == nil else { return false }
            state.announced = true
            return true
        }
    }

    // MARK: - From the client

    /// A packet for this namespace from the client.
    func received(_ packet: SocketPacket) {
        switch packet.kind {
        case .event, .binaryEvent:
            namespace.metrics.eventReceived()
            dispatch(packet)
        case .ack, .binaryAck:
            guard let id = packet.id else { return }
            // Unknown or late: ignored, as socket.io does.
            pendingAcks.settle(id, with: .success(packet.arguments))
        case .disconnect:
            finish(.clientNamespaceDisconnect)
        case .connect, .connectError:
            return
        }
    }

    private func dispatch(_ packet: SocketPacket) {
        guard let name = packet.eventName else { return }
        let handlers = state.withLockedValue { $0.listeners.take(for: name, includeAny: true) }
        guard !handlers.isEmpty else { return }
        let ack = packet.id.map { ackID in
            let once = OnceFlag()
            return ServerAckResponder { [self] items in
                guard once.claim() else { return false }
                namespace.metrics.ackAnswered()
                outbox.deliver(EngineFrame.frames(of: .ack(items, namespace: namespace.name, id: ackID)), offset: nil)
                return true
            }
        }
        let event = ServerEvent(name: name, items: packet.arguments, ack: ack)
        for handler in handlers { handler(event) }
    }
}
