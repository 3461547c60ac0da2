import SwitchboardCore
import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol

/// One namespace's connection over its manager's engine: what a ``Socket`` does behind its
/// public API. It holds the namespace's state (``SocketState``, one value under one lock), the
/// `emitWithAck` callers waiting for acks, and the listeners, and it is what the manager talks
/// to: the engine opened, closed or failed, a packet arrived, reconnection gave up.
///
/// Each event is one ``transition(_:)`` (one ``SocketState`` method or one machine transition)
/// under the lock; what it hands back — a write, a caller to resume, a status to publish — is
/// done after the lock is released.
final class NamespaceConnection: Sendable {
    /// The namespace, e.g. `/` or `/chat`.
    let namespace: String
    /// The manager's connection; strong, as the socket keeps its manager.
    let manager: ManagerConnection
    /// The namespace's state, one value (see ``transition(_:)``).
    let inner: NIOLockedValueBox<SocketState>
    /// The listeners and the event sequences, beside the connection state.
    let listeners = SocketListeners()
    /// `emitWithAck` callers waiting for the server's ack, by ack id.
    let pendingAcks = PendingReplies<Int, [JSONValue], SocketIOError>()

    /// Made with its socket by the manager, under its lock: nothing here may call back into
    /// the manager.
    init(manager: ManagerConnection, namespace: String, auth: SocketAuth, version: SocketIOVersion) {
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

    var connected: Bool { transition { $0.machine.isConnected } }

    var isActive: Bool { transition { $0.machine.isActive } }

    // MARK: - Connecting

    /// The app wants the namespace connected (``Socket/startConnecting()``).
    func startConnecting() {
        manager.socketWantsConnection(self)
        let engineSID = manager.openEngineSID
        let (action, change) = transition { $0.connect(engineOpen: engineSID != nil, sid: engineSID ?? "") }
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

    /// Waits until the server accepts the namespace (``Socket/connect()``).
    func connect() async throws(SocketIOError) {
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

    /// The app leaves the namespace (``Socket/disconnect()``).
    func disconnect() {
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
        case .awaitConnect: _ = armConnectDeadline()
        case .none: return
        }
    }

    func engineClosed(_ reason: DisconnectReason) {
        let action = transition { $0.machine.engineClosed(reason) }
        switch action {
        case .none:
            return
        case .disconnected(let reason, _, let wasConnected):
            let failure: SocketIOError = wasConnected ? .disconnected(reason) : .connectionFailed(reason.detail)
            ended(reason, connectFailure: failure)
            // No reconnection follows (it is off, or the reason is final): nothing queued can go,
            // and the manager lets go of the socket, as after the app's disconnect().
            guard !isActive else { return }
            failRetryQueue(with: failure)
            manager.socketEnded(self)
        case .attemptFailed(let reason):
            transition { $0.takeEndedConnectDeadline() }?.cancel()  // the next session's CONNECT gets its own
            dispatch(SocketEvent(name: "connect_error", items: [.string(SocketIOError.connectionFailed(reason.detail).description)]), includeAny: false)
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

    /// Counts a CONNECT sent (or awaited) and bounds it like the Engine.IO open, so a server or
    /// auth provider that never answers cannot leave `connect()` waiting; returns its number.
    private func armConnectDeadline() -> Int {
        let attempt = transition { $0.machine.connectSent() }
        let timeout = manager.configuration.connectTimeout
        let deadline = manager.schedule(after: timeout) { [weak self] _ in
            // Given up, as a refusal is.
            guard let self, self.transition({ $0.machine.connectTimedOut(attempt: attempt) }) else { return }
            self.connectFailed(.connectionFailed("the server did not answer the CONNECT to namespace \(self.namespace) within \(timeout)"))
        }
        transition { $0.keepConnectDeadline(deadline, attempt: attempt) }?.cancel()
        return attempt
    }

    private func sendConnect() {
        let attempt = armConnectDeadline()
        let (auth, recovery) = transition { $0.connectFields() }
        let version = manager.socketIOVersion
        let namespace = self.namespace
        let send: @Sendable (JSONObject?) -> Void = { [manager] object in
            // Recovery fields first, then the app's auth, as socket.io's client merges them.
            var payload = recovery
            for member in object ?? [:] where payload[member.key] == nil { payload[member.key] = member.value }
            manager.write(SocketPacket.connect(namespace: namespace, auth: payload, version: version))
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
                    // The app may have disconnected, or this CONNECT been given up, while the provider ran.
                    guard self.transition({ $0.machine.awaitsConnect(attempt) }) else { return }
                    send(object)
                } catch {
                    guard self.transition({ $0.machine.authProviderFailed(attempt: attempt) }) else { return }
                    self.connectFailed(.connectionFailed("auth provider failed: \(error)"))
                }
            }
        }
    }

    /// The manager cannot have a session and stopped trying: as a refusal, and nothing queued can go.
    func engineFailed(_ error: SocketIOError) {
        guard transition({ $0.machine.engineFailed() }) else { return }
        connectFailed(error)
        failRetryQueue(with: error)
    }
}
