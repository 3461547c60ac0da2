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

    /// Everything the socket keeps beside its listeners (see ``transition(_:)``).
    let inner: NIOLockedValueBox<SocketState>
    /// The listeners and the event sequences, beside the connection state.
    let listeners = SocketListeners()
    /// `emitWithAck` callers waiting for the server's ack, by ack id.
    let pendingAcks = PendingReplies<Int, [JSONValue], SocketIOError>()

    /// Made by the manager, under its lock: nothing here may call back into the manager.
    init(manager: Manager, namespace: String, auth: SocketAuth, version: SocketIOVersion) {
        self.manager = manager
        self.namespace = namespace
        let machine = SocketStateMachine(
            namespace: namespace,
            version: version,
            sendBufferLimit: manager.configuration.sendBufferLimit,
            reconnects: manager.configuration.reconnection
        )
        self.inner = NIOLockedValueBox(SocketState(machine: machine, auth: auth))
    }

    /// One event (or a read) of the socket's state under its lock: each call site runs one of
    /// ``SocketState``'s methods or one machine transition, and does what it hands back after.
    func transition<T>(_ event: (inout SocketState) -> T) -> T {
        inner.withLockedValue(event)
    }

    /// The server-assigned socket id while connected.
    public var id: String? {
        if case .connected(let id) = status { return id }
        return nil
    }

    /// Whether the namespace is connected.
    public var connected: Bool { transition { $0.machine.isConnected } }

    /// Whether the socket wants a connection (connecting or connected).
    public var active: Bool { isActive }

    /// Whether the last connection restored the previous session (connection state recovery):
    /// the server replayed the events emitted while this socket was away, each exactly once.
    public var recovered: Bool { transition { $0.machine.recovered } }

    /// The current status.
    public var status: SocketStatus { transition { $0.machine.status } }

    /// The auth payload used at the next CONNECT.
    public var auth: SocketAuth {
        get { transition { $0.auth } }
        set { transition { $0.auth = newValue } }
    }

    var isActive: Bool { transition { $0.machine.isActive } }

    // MARK: - Connecting

    /// Starts connecting the namespace and returns at once; listen for `connect`/`connect_error`
    /// or watch ``statusChanges``.
    public func startConnecting() {
        manager.socketWantsConnection(self)
        let engineOpen = manager.isEngineOpen
        let (action, change) = transition { $0.connect(engineOpen: engineOpen) }
        switch action {
        case .none:
            return
        case .openEngine:
            publish(change)
            // The engine may have opened between the check above and now: then connect here.
            if let (version, sid) = manager.openEngine() { engineOpened(version: version, sid: sid) }
        case .sendConnect:
            publish(change)
            sendConnect()
        }
    }

    /// Connects the namespace and waits until the server accepts it.
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
        if connected { return }
        let waiter = transition { $0.makeWaiterID() }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    transition { $0.addConnectWaiter(waiter, continuation) }
                    if Task.isCancelled { cancelConnectWaiter(waiter) }
                    startConnecting()
                    if connected { resumeConnectWaiters(with: nil) }
                }
            } onCancel: {
                self.cancelConnectWaiter(waiter)
            }
        } catch let error as SocketIOError {
            throw error
        } catch {
            throw .connectionFailed("\(error)")
        }
    }

    /// Stops waiting in `connect()` for a cancelled caller (the connection attempt goes on).
    private func cancelConnectWaiter(_ id: Int) {
        let waiter = transition { $0.removeConnectWaiter(id) }
        waiter?.resume(throwing: SocketIOError.connectionFailed("cancelled"))
    }

    /// Leaves the namespace (`io client disconnect`); pending acks fail, buffered emits are dropped
    /// and their ack callers told. The manager closes the connection when no socket needs it.
    public func disconnect() {
        let (action, dropped) = transition { $0.disconnect() }
        switch action {
        case .none, .attemptFailed:
            failAcks(ids: dropped.compactMap(\.id), with: .disconnected(.ioClientDisconnect))
        case .disconnected(let reason, let sendDisconnect, _):
            // After a fence: events emitted just before must reach the server in an earlier read
            // than the DISCONNECT, or socket.io's Node server drops them (see README, "Closing").
            if sendDisconnect { manager.write(SocketPacket(kind: .disconnect, namespace: namespace), afterPeerRead: true) }
            failAcks(ids: dropped.compactMap(\.id), with: .disconnected(reason))
            ended(reason, connectFailure: .disconnected(reason))
        }
        failRetryQueue(with: .disconnected(.ioClientDisconnect))
        manager.socketBecameInactive(self)
    }

    // MARK: - From the manager

    func engineOpened(version: SocketIOVersion, sid: String) {
        let action = transition { $0.machine.engineOpened(version: version, sid: sid) }
        switch action {
        case .sendConnect: sendConnect()
        case .openEngine, .none: return
        }
    }

    func engineClosed(_ reason: DisconnectReason) {
        let action = transition { $0.machine.engineClosed(reason) }
        switch action {
        case .none:
            return
        case .disconnected(let reason, _, let wasConnected):
            let failure: SocketIOError = wasConnected
                ? .disconnected(reason)
                : .connectionFailed(Self.detail(of: reason))
            ended(reason, connectFailure: failure)
        case .attemptFailed(let reason):
            dispatch(SocketEvent(name: "connect_error", items: [.string(SocketIOError.connectionFailed(Self.detail(of: reason)).description)]), includeAny: false)
        }
    }

    /// The manager stopped reconnecting (attempts exhausted): callers waiting in `connect()` and
    /// buffered emits' ack callers hear it; the buffer is kept for a later `connect()`.
    func reconnectionFailed() {
        let (wasWaiting, status) = transition { $0.reconnectionFailed() }
        guard wasWaiting else { return }
        let attempts = manager.configuration.reconnectionAttempts ?? 0
        publish(status)
        dispatch(SocketEvent(name: "connect_error", items: [.string(SocketIOError.reconnectFailed(attempts: attempts).description)]), includeAny: false)
        resumeConnectWaiters(with: .reconnectFailed(attempts: attempts))
        failRetryQueue(with: .reconnectFailed(attempts: attempts))
    }

    private func sendConnect() {
        let (auth, recovery) = transition { $0.connectFields() }
        let version = manager.socketIOVersion
        let namespace = self.namespace
        let send: @Sendable (JSONObject?) -> Void = { [manager] object in
            // Recovery fields first, then the app's auth, as socket.io's client merges them.
            var payload = recovery
            for member in object ?? [:] where payload[member.key] == nil { payload[member.key] = member.value }
            manager.write(Self.connectPacket(namespace: namespace, auth: payload, version: version))
        }
        switch auth {
        case .none:
            send(nil)
        case .static(let object):
            send(object)
        case .provider:
            Task {
                do {
                    let object = try await auth.resolve()
                    // The app may have disconnected while the provider ran.
                    guard self.transition({ $0.machine.status == .connecting }) else { return }
                    send(object)
                } catch {
                    guard self.transition({ $0.machine.engineFailed() }) else { return }
                    self.connectFailed(.connectionFailed("auth provider failed: \(error)"))
                }
            }
        }
    }

    static func connectPacket(namespace: String, auth: JSONObject?, version: SocketIOVersion) -> SocketPacket {
        guard let auth, !auth.isEmpty else { return SocketPacket(kind: .connect, namespace: namespace) }
        switch version {
        case .v5:
            return SocketPacket(kind: .connect, namespace: namespace, data: .object(auth))
        case .v4:
            // Protocol v4 has no CONNECT payload: socket.io 2.x clients append a query to the
            // namespace (`40/chat?token=abc,`), which JS servers expose as the auth object.
            var components = URLComponents()
            components.queryItems = auth.map { URLQueryItem(name: $0.key, value: $0.value.stringValue ?? $0.value.jsonString) }
            return SocketPacket(kind: .connect, namespace: namespace + "?" + (components.percentEncodedQuery ?? ""))
        }
    }

    func engineFailed(_ error: SocketIOError) {
        guard transition({ $0.machine.engineFailed() }) else { return }
        connectFailed(error)
    }

    static func detail(of reason: DisconnectReason) -> String {
        switch reason {
        case .transportError(let detail), .parseError(let detail): detail
        case .ioServerDisconnect, .ioClientDisconnect, .pingTimeout, .transportClose: reason.description
        }
    }
}
