import SwitchboardCore
import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol

/// One namespace on a ``Manager``: connect, emit, acknowledge and listen.
///
/// Every method is safe to call from any thread or task. Handlers run on the manager's
/// ``HandlerExecutor`` (a serial queue by default), in the order events arrived, never while a
/// lock is held.
///
/// ```swift
/// let socket = manager.socket(namespace: "/")
/// socket.on("echo") { event in print(event.items) }
/// try await socket.connect()
/// try socket.emit("echo", "hello", 42)
/// let reply = try await socket.emitWithAck("ack", ["x": 1], timeout: .seconds(5))
/// ```
public final class Socket: Sendable {
    /// The namespace, e.g. `/` or `/chat`.
    public let namespace: String
    /// Strong: a socket keeps its manager (and so its connection) alive, as in socket.io.
    let manager: Manager
    /// What the socket does behind its API, and what the manager talks to.
    let connection: NamespaceConnection
    /// The listeners and the event sequences (the connection dispatches to them).
    var listeners: SocketListeners { connection.listeners }

    /// Made by the manager, under its lock: nothing here may call back into the manager.
    init(manager: Manager, namespace: String, auth: SocketAuth, version: SocketIOVersion) {
        self.manager = manager
        self.namespace = namespace
        self.connection = NamespaceConnection(manager: manager.connection, namespace: namespace, auth: auth, version: version)
    }

    /// The server-assigned socket id while connected.
    public var id: String? {
        if case .connected(let id) = status { return id }
        return nil
    }

    /// Whether the namespace is connected.
    public var connected: Bool { connection.connected }

    /// Whether the socket wants a connection (connecting or connected).
    public var active: Bool { connection.isActive }

    /// Whether the last connection restored the previous session (connection state recovery):
    /// the server replayed the events emitted while this socket was away, each exactly once.
    public var recovered: Bool { connection.transition { $0.machine.recovered } }

    /// The current status.
    public var status: SocketStatus { connection.transition { $0.machine.status } }

    /// The auth payload used at the next CONNECT.
    public var auth: SocketAuth {
        get { connection.transition { $0.auth } }
        set { connection.transition { $0.auth = newValue } }
    }

    // MARK: - Connecting

    /// Starts connecting the namespace and returns at once; listen for `connect`/`connect_error`
    /// or watch ``statusChanges``.
    public func startConnecting() {
        connection.startConnecting()
    }

    /// Connects the namespace and waits until the server accepts it. When the server restored
    /// the session (``recovered``), this also waits until the events it replayed ran through the
    /// listeners on the handler executor (a handler that never returns holds it there).
    ///
    /// With reconnection on (the default) this waits across attempts, as socket.io's client does:
    /// each failed attempt is a `connect_error` event and the manager retries with backoff.
    ///
    /// - Throws: ``SocketIOError/connectError(message:data:)`` when the server refuses (its
    ///   message and data); ``SocketIOError/reconnectFailed(attempts:)`` when
    ///   `reconnectionAttempts` ran out; ``SocketIOError/versionMismatch(client:server:)``;
    ///   ``SocketIOError/disconnected(_:)`` when the app disconnects meanwhile;
    ///   ``SocketIOError/connectionFailed(_:)`` when the attempt fails and reconnection is off, or
    ///   the calling task is cancelled.
    public func connect() async throws(SocketIOError) {
        try await connection.connect()
        // The server sends the missed events before its CONNECT reply; they go to the executor
        // before `connect` (as in socket.io's client): a caller reads its state after they ran.
        if recovered { await connection.manager.handlers.drained() }
    }

    /// Leaves the namespace (`io client disconnect`); pending acks fail, buffered emits are dropped
    /// and their ack callers told. The manager closes the connection when no socket needs it.
    public func disconnect() {
        connection.disconnect()
    }
}
