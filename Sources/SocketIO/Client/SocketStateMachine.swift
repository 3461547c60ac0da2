import SocketIOProtocol

/// One namespace's connection rules, as a value type.
///
/// `idle → connecting → connected → disconnected`, and from `disconnected` (or after a
/// refusal) back to `connecting` when the app connects again. Events that arrive before the
/// CONNECT reply are held and delivered right after it, before the app hears `connect` (python
/// servers send what their connect handler emits first), up to `earlyEventLimit`. Emits made while not connected are
/// held, in order, up to `sendBufferLimit`, and flushed after the CONNECT reply.
struct SocketStateMachine: Sendable {
    enum State: Sendable, Equatable {
        case idle
        case connecting(early: [SocketPacket])
        case connected(id: String, pid: String?)
        case disconnected(DisconnectReason)
    }

    let namespace: String
    /// The revision of the current session (set when the engine opens).
    private(set) var version: SocketIOVersion
    /// The Engine.IO sid of the current session (protocol v4 socket ids derive from it).
    private(set) var engineSID = ""
    let sendBufferLimit: Int
    /// The most events held before the CONNECT reply (``State/connecting(early:)``); one more
    /// gives the connect up.
    var earlyEventLimit = Self.defaultEarlyEventLimit
    /// Whether the manager reconnects on its own after a recoverable loss.
    let reconnects: Bool
    /// Lost the connection for a recoverable reason and waits for the manager's reconnection:
    /// the socket still wants a connection and sends CONNECT when the next session opens.
    private(set) var awaitingReconnect = false
    private(set) var state: State = .idle
    private(set) var sendBuffer: [SocketPacket] = []
    /// Connected, and the buffer's emits are being written (``flushed()``): a new emit waits
    /// behind them in the buffer, so none overtakes an older one.
    private(set) var flushing = false
    private var nextAckID = 0
    /// Connection state recovery: the private session id from the last CONNECT reply, and the
    /// offset of the last event received (sent back on the next CONNECT).
    private(set) var recovery: (pid: String, offset: String?)?
    /// Whether the last CONNECT reply restored the previous session (the server replayed what
    /// was missed): its `pid` equals the one we sent.
    private(set) var recovered = false
    /// The `pid` sent with the CONNECT in flight, if any.
    private var pidSent: String?
    /// How many CONNECTs were sent: the deadline of each knows its number (a stale one is ignored).
    private(set) var connectsSent = 0
    /// The last CONNECT went unanswered past its deadline and was given up: an accept that comes
    /// after all is answered with a DISCONNECT.
    private var connectWithdrawn = false

    /// The fields a CONNECT carries before the app's auth to ask for recovery (protocol v5 only):
    /// `{"pid": …, "offset": …}`; the offset is left out when no event was received yet.
    mutating func recoveryFields() -> JSONObject {
        guard version == .v5, let recovery else {
            pidSent = nil
            return [:]
        }
        pidSent = recovery.pid
        var fields: JSONObject = ["pid": .string(recovery.pid)]
        if let offset = recovery.offset { fields["offset"] = .string(offset) }
        return fields
    }

    /// The default ``earlyEventLimit``: far more than a connect handler sends before its accept
    /// (python-socketio's servers send those events first), far less than would exhaust memory.
    static let defaultEarlyEventLimit = 10_000

    init(namespace: String, version: SocketIOVersion, sendBufferLimit: Int, reconnects: Bool = false) {
        self.namespace = namespace
        self.version = version
        self.sendBufferLimit = sendBufferLimit
        self.reconnects = reconnects
    }

    var status: SocketStatus {
        switch state {
        case .idle: .notConnected
        case .connecting: .connecting
        case .connected(let id, _): .connected(id: id)
        case .disconnected(let reason): .disconnected(reason)
        }
    }

    var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }

    /// Whether the socket wants a connection (connecting or connected).
    var isActive: Bool {
        switch state {
        case .connecting, .connected: true
        case .idle, .disconnected: awaitingReconnect
        }
    }

    mutating func makeAckID() -> Int {
        defer { nextAckID += 1 }
        return nextAckID
    }

    // MARK: - Connecting

    enum ConnectAction: Equatable {
        /// Send CONNECT now (the engine is open), with auth where the protocol carries it.
        case sendConnect
        /// Ask the manager to open the engine; CONNECT goes out when it opens.
        case openEngine
        case none
    }

    enum EngineOpenedAction: Equatable {
        /// Send CONNECT on the new session.
        case sendConnect
        /// Protocol v4's `/`: the server connects it on its own, so nothing is sent; its accept
        /// is awaited under the same deadline as a CONNECT's (``connectSent()``).
        case awaitConnect
        case none
    }

    /// Whether this connection attempt's CONNECT was asked for (so it goes out once).
    private var connectRequested = false

    /// The app connects; `sid` is the open engine session's (when `engineOpen`). Its CONNECT
    /// is then sent for that session, so the session's own opening, when it reaches this socket
    /// after (the app connected on the manager's `reconnect` event), sends no second one.
    mutating func connect(engineOpen: Bool, sid: String = "") -> ConnectAction {
        switch state {
        case .connecting, .connected:
            return .none
        case .idle, .disconnected:
            awaitingReconnect = false
            state = .connecting(early: [])
            connectRequested = engineOpen
            if engineOpen { engineSID = sid }
            return engineOpen ? .sendConnect : .openEngine
        }
    }

    /// The engine session opened, speaking `version`.
    mutating func engineOpened(version: SocketIOVersion, sid: String = "") -> EngineOpenedAction {
        if awaitingReconnect, case .disconnected = state {
            awaitingReconnect = false
            state = .connecting(early: [])
            connectRequested = false
        }
        guard case .connecting = state, !connectRequested || engineSID != sid else { return .none }
        connectRequested = true
        self.version = version
        self.engineSID = sid
        // Socket.IO v4 servers connect `/` on their own; every other case sends CONNECT.
        return version == .v4 && namespace == "/" ? .awaitConnect : .sendConnect
    }

    /// A CONNECT is being sent (or, for protocol v4's `/`, awaited): returns its number, for its
    /// deadline.
    mutating func connectSent() -> Int {
        connectsSent += 1
        connectWithdrawn = false
        return connectsSent
    }

    /// Whether CONNECT number `attempt` is the one still awaited.
    func awaitsConnect(_ attempt: Int) -> Bool {
        guard attempt == connectsSent, connectRequested, case .connecting = state else { return false }
        return true
    }

    /// The auth provider of CONNECT number `attempt` failed: `true` when that CONNECT is still
    /// the one awaited, which is then given up (an earlier attempt's provider, finishing late,
    /// must not fail the next one).
    mutating func authProviderFailed(attempt: Int) -> Bool {
        awaitsConnect(attempt) && engineFailed()
    }

    /// CONNECT number `attempt` had no answer within the connect timeout: `true` when it is still
    /// the one awaited, which is then given up (the namespace is idle, as after a refusal).
    mutating func connectTimedOut(attempt: Int) -> Bool {
        guard awaitsConnect(attempt) else { return false }
        state = .idle
        pidSent = nil
        connectWithdrawn = true
        return true
    }

    // MARK: - Receiving

    enum ReceiveAction: Equatable {
        /// The namespace is connected: deliver the early events, flush the buffer, report.
        case connected(id: String, early: [SocketPacket], flush: [SocketPacket])
        /// The server refused the namespace.
        case connectFailed(SocketIOError)
        /// An event for the app.
        case deliverEvent(SocketPacket)
        /// An ack answering one of our emits.
        case resolveAck(id: Int, items: [JSONValue])
        /// The server removed us from the namespace: fail every ack caller (the buffered emits
        /// with acks were dropped).
        case disconnected(DisconnectReason)
        /// The server accepted a CONNECT given up on (``connectTimedOut(attempt:)``): leave again.
        case withdraw
        case none
    }

    mutating func received(_ packet: SocketPacket) -> ReceiveAction {
        switch (state, packet.kind) {
        case (.connecting(let early), .connect):
            let id: String
            if version == .v5 {
                guard let sid = packet.data?["sid"]?.stringValue else {
                    state = .idle
                    return .connectFailed(.connectError(
                        message: "It seems you are trying to reach a Socket.IO server in v2.x with a v3.x client, but they are not compatible",
                        data: nil))
                }
                id = sid
            } else {
                id = SocketNamespace.protocolV4SocketID(namespace: namespace, engineSID: engineSID)
            }
            let pid = packet.data?["pid"]?.stringValue
            state = .connected(id: id, pid: pid)
            recovered = pid != nil && pid == pidSent
            pidSent = nil
            if let pid, recovery?.pid != pid { recovery = (pid, nil) }
            if pid == nil { recovery = nil }
            let flush = sendBuffer
            sendBuffer = []
            flushing = !flush.isEmpty
            return .connected(id: id, early: early.map { stripOffset($0) }, flush: flush)
        case (.connecting, .connectError):
            state = .idle
            return .connectFailed(Self.connectError(from: packet.data))
        case (.connecting(var early), .event), (.connecting(var early), .binaryEvent):
            state = .idle  // `early` alone holds the events: the append copies nothing
            guard early.count < earlyEventLimit else {
                // A server that keeps sending events and never accepts: given up, as an
                // unanswered CONNECT is, rather than held without end.
                pidSent = nil
                connectWithdrawn = true
                return .connectFailed(.connectionFailed(
                    "the server sent more than \(earlyEventLimit) events to namespace \(namespace) without accepting its CONNECT"))
            }
            early.append(packet)
            state = .connecting(early: early)
            return .none
        case (.connected, .event), (.connected, .binaryEvent):
            return .deliverEvent(stripOffset(packet))
        case (.connected, .ack), (.connected, .binaryAck), (.connecting, .ack), (.connecting, .binaryAck):
            guard let id = packet.id else { return .none }
            return .resolveAck(id: id, items: packet.arguments)
        case (.connected, .disconnect), (.connecting, .disconnect):
            state = .disconnected(.ioServerDisconnect)
            // No reconnection follows, so every ack caller is failed now: their buffered emits must
            // not reach the server on a later connect(). Those without an ack stay for it, as
            // socket.io's client keeps its sendBuffer.
            sendBuffer.removeAll { $0.id != nil }
            return .disconnected(.ioServerDisconnect)
        case (.idle, .connect) where connectWithdrawn:
            connectWithdrawn = false
            return .withdraw
        case (.connected, .connect), (.connected, .connectError),
             (.idle, _), (.disconnected, _):
            return .none
        }
    }

    /// With recovery on, the server appends the event's offset as a last string argument to every
    /// event it emits without an ack id. It is removed here (handlers never see it) and
    /// remembered. Only when a `pid` is known and the event has no ack id, so an ordinary
    /// trailing string is never mistaken for an offset.
    private mutating func stripOffset(_ packet: SocketPacket) -> SocketPacket {
        guard let current = recovery, packet.id == nil, case .array(var items)? = packet.data, items.count >= 2,
              case .string(let offset)? = items.last else { return packet }
        items.removeLast()
        recovery = (current.pid, offset)
        var stripped = packet
        stripped.data = .array(items)
        return stripped
    }

    /// socket.io's CONNECT_ERROR payloads: `{message, data}` (v5), a string (v4, python), or nothing.
    static func connectError(from data: JSONValue?) -> SocketIOError {
        switch data {
        case .string(let message)?:
            return .connectError(message: message, data: nil)
        case .object(let object)?:
            let message = object["message"]?.stringValue ?? JSONValue.object(object).jsonString
            return .connectError(message: message, data: object["data"])
        case nil, .null?, .bool?, .number?, .array?, .binary?:
            return .connectError(message: data?.jsonString ?? "connection refused", data: nil)
        }
    }

    // MARK: - Sending

    enum EmitAction: Equatable {
        case send(SocketPacket)
        /// Held until connected.
        case buffered
        /// The buffer is full; the caller gets an error.
        case refuse
    }

    mutating func emit(_ packet: SocketPacket) -> EmitAction {
        if isConnected, !flushing { return .send(packet) }
        if isConnected { return append(packet) }
        guard sendBuffer.count < sendBufferLimit else { return .refuse }
        return append(packet)
    }

    private mutating func append(_ packet: SocketPacket) -> EmitAction {
        sendBuffer.append(packet)
        return .buffered
    }

    /// The last batch of the flush was written: the emits that came meanwhile, to write next
    /// (empty when the flush is over, or the connection went away and they wait for the next).
    mutating func flushed() -> [SocketPacket] {
        guard flushing, isConnected, !sendBuffer.isEmpty else {
            flushing = false
            return []
        }
        defer { sendBuffer = [] }
        return sendBuffer
    }

    /// A batch of the flush found no connection to write to: it goes back in front of the
    /// buffer, for the next connect.
    mutating func flushFailed(_ batch: [SocketPacket]) {
        sendBuffer = batch + sendBuffer
        flushing = false
    }

    // MARK: - Ending

    enum DisconnectAction: Equatable {
        /// Tell the server (if connected), report the reason, fail what was pending.
        case disconnected(DisconnectReason, sendDisconnect: Bool, wasConnected: Bool)
        /// A connection attempt failed and the manager will try again: report `connect_error`,
        /// keep waiting callers waiting.
        case attemptFailed(DisconnectReason)
        case none
    }

    /// The app disconnects this namespace.
    mutating func disconnect() -> DisconnectAction {
        awaitingReconnect = false
        switch state {
        case .idle, .disconnected:
            state = .disconnected(.ioClientDisconnect)
            return .none
        case .connecting:
            state = .disconnected(.ioClientDisconnect)
            return .disconnected(.ioClientDisconnect, sendDisconnect: false, wasConnected: false)
        case .connected:
            state = .disconnected(.ioClientDisconnect)
            return .disconnected(.ioClientDisconnect, sendDisconnect: true, wasConnected: true)
        }
    }

    /// The session could not be opened (wrong version, refused handshake) and the manager stopped
    /// trying: a connecting socket goes back to idle, one waiting to reconnect stops waiting.
    /// Returns whether it was either (its callers must be told).
    mutating func engineFailed() -> Bool {
        switch state {
        case .connecting:
            state = .idle
            return true
        case .disconnected:
            defer { awaitingReconnect = false }
            return awaitingReconnect
        case .idle, .connected:
            return false
        }
    }

    /// The engine session ended under this socket. After a recoverable reason, with reconnection
    /// on, the socket waits for the manager's next session instead of giving up.
    mutating func engineClosed(_ reason: DisconnectReason) -> DisconnectAction {
        let retry = reconnects && reason.isRecoverable
        switch state {
        case .idle, .disconnected:
            return .none
        case .connecting:
            if retry {
                state = .connecting(early: [])
                connectRequested = false
                return .attemptFailed(reason)
            }
            state = .disconnected(reason)
            return .disconnected(reason, sendDisconnect: false, wasConnected: false)
        case .connected:
            state = .disconnected(reason)
            awaitingReconnect = retry
            return .disconnected(reason, sendDisconnect: false, wasConnected: true)
        }
    }

    /// The manager gave up reconnecting: the socket no longer wants a connection, as when the
    /// session could not be opened (``engineFailed()``). Returns whether it was waiting for one
    /// (its callers must be told).
    mutating func reconnectionFailed() -> Bool {
        engineFailed()
    }

    /// Puts back an emit that found no connection to write to (it goes out on the next connect).
    mutating func requeue(_ packet: SocketPacket) {
        sendBuffer.append(packet)
    }

    /// Removes a buffered emit whose ack timed out, so it is not sent later.
    mutating func removeBuffered(ackID: Int) {
        sendBuffer.removeAll { $0.id == ackID }
    }

    /// Drops the buffered emits (after a final disconnect) and returns them, so their callers can be told.
    mutating func drainSendBuffer() -> [SocketPacket] {
        defer { sendBuffer = [] }
        return sendBuffer
    }
}
