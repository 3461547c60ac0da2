import Logging
import SocketIOProtocol

extension ClientConnection {
    /// Handles CONNECT for `name`: recovery or auth hooks, then the reply, then the app's
    /// connection handlers. The reply is the first packet of the namespace the client sees
    /// (after the replayed events of a recovered session, as socket.io orders them).
    func connect(to name: String, auth: JSONObject?) async {
        guard let namespace = namespaces[name] else {
            refuse(name, message: "Invalid namespace", data: nil)
            return
        }
        // Without an offset the client kept no event (socket.io's clients leave it out then):
        // it missed every one, and gets them all.
        if !isProtocolV4, let recovery = environment.configuration.recovery, let pid = auth?["pid"]?.stringValue {
            let offset = auth?["offset"]?.stringValue
            namespace.metrics.recoveryAttempted()
            if namespace.durable != nil {
                switch await restoreFromCluster(namespace, pid: pid, offset: offset, auth: auth, recovery: recovery) {
                case .restored:
                    return
                case .sendElsewhere:
                    session.close(.serverShuttingDown)
                    return
                case .connectAfresh:
                    break
                }
            } else if await restore(namespace, pid: pid, offset: offset, auth: auth, recovery: recovery) {
                return
            }
        }

        let handshake = SocketHandshake(namespace: name, auth: auth, request: session.request)
        do {
            try await namespace.authorize(handshake)
        } catch let refusal as ConnectionRefused {
            refuse(name, message: refusal.message, data: refusal.data)
            return
        } catch {
            refuse(name, message: "\(error)", data: nil)
            return
        }
        guard !isClosed else { return }

        // Protocol v4 has no recovery, and a socket's id is the engine's sid (`/nsp#sid`).
        let recovery = isProtocolV4 ? nil : environment.configuration.recovery
        let socket = ServerSocket(
            id: isProtocolV4 ? SocketNamespace.protocolV4SocketID(namespace: name, engineSID: session.sid) : Identifiers.make(),
            pid: recovery == nil ? nil : Identifiers.make(),
            namespace: namespace,
            handshake: handshake,
            recovered: false,
            data: [:],
            outbox: SocketOutbox(
                session: session,
                log: recovery.map { PacketLog(maxEntries: $0.maxStoredPackets, maxAge: $0.maxDisconnectionDuration) },
                clock: environment.clock
            ),
            client: self
        )
        // In the namespace first, so a broadcast made once the client has the reply reaches it;
        // the outbox holds such packets until the reply is written.
        namespace.add(socket)
        let reply = isProtocolV4 ? SocketPacket(kind: .connect, namespace: name) : SocketPacket.connectReply(name, id: socket.id, pid: socket.pid)
        socket.outbox.open(reply: EngineFrame.frames(of: reply))
        await joined(socket)
    }

    /// Gives a recovering client its kept session back (every event after `offset`; all of
    /// them without one); `false` means connect it afresh.
    func restore(
        _ namespace: Namespace,
        pid: String,
        offset: String?,
        auth: JSONObject?,
        recovery: ConnectionStateRecovery
    ) async -> Bool {
        closeStale(namespace, pid: pid)
        guard let restorable = namespace.takeRestorable(pid: pid) else { return false }
        let reply = EngineFrame.frames(of: SocketPacket.connectReply(namespace.name, id: restorable.id, pid: pid))
        switch restorable.outbox.restore(on: session, after: offset, reply: reply, maxBytes: environment.configuration.maxQueuedBytes) {
        case .restored:
            break
        case .offsetNotKept:
            session.logger.debug("cannot recover: offset not kept", metadata: ["socketio.nsp": "\(namespace.name)"])
            namespace.forget(restorable.id)
            return false
        case .tooLarge(let bytes):
            session.logger.warning(
                "cannot recover: \(bytes) bytes of missed events, more than maxQueuedBytes",
                metadata: ["socketio.nsp": "\(namespace.name)"]
            )
            namespace.forget(restorable.id)
            return false
        }
        let socket = ServerSocket(
            id: restorable.id,
            pid: pid,
            namespace: namespace,
            handshake: SocketHandshake(namespace: namespace.name, auth: auth, request: session.request),
            recovered: true,
            data: restorable.data,
            outbox: restorable.outbox,
            client: self
        )
        namespace.attach(socket)
        await joined(socket)
        return true
    }

    /// The client is back on a new connection while its old one still looks open: a link that
    /// died without a word (its address vanished, a NAT forgot it), which the heartbeat would
    /// notice only in pingInterval + pingTimeout. The private id proves it is the same client:
    /// the old connection is taken as lost (recoverable), and the session recovered now.
    /// (socket.io's server starts a new session instead.)
    func closeStale(_ namespace: Namespace, pid: String) {
        guard let stale = namespace.connectedSocket(pid: pid), stale.client !== self else { return }
        session.logger.debug("recovering a session whose old connection still looks open: closing that one",
                             metadata: ["socketio.nsp": "\(namespace.name)"])
        stale.finish(.transportClose)
        stale.client.session.close(.transportClose)
    }

    /// The socket is in its namespace: route the client's packets to it, report it and run the
    /// app's handlers (or undo everything if the connection closed, or it left, meanwhile).
    func joined(_ socket: ServerSocket) async {
        guard register(socket) else {
            socket.finish(.transportClose)
            return
        }
        guard socket.announce() else { return remove(socket) }
        session.logger.debug("socket connected", metadata: [
            "socketio.nsp": "\(socket.namespace.name)", "socketio.id": "\(socket.id)",
        ])
        environment.events.emit(.socketConnected(
            namespace: socket.namespace.name, id: socket.id, sid: session.sid, recovered: socket.recovered
        ))
        await socket.namespace.runConnectionHandlers(socket)
    }

    private func refuse(_ name: String, message: String, data: JSONValue?) {
        if isProtocolV4 {
            // v4's ERROR: the data, or the message as a JSON string (socket.io's EIO3 answer).
            write(SocketPacket(kind: .connectError, namespace: name, data: data ?? .string(message)))
        } else {
            var payload: JSONObject = ["message": .string(message)]
            if let data { payload["data"] = data }
            write(SocketPacket(kind: .connectError, namespace: name, data: .object(payload)))
        }
        environment.events.emit(.socketRefused(namespace: name, sid: session.sid, message: message))
    }
}
