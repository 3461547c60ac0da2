import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol

/// The Socket.IO side of one Engine.IO session (socket.io's `Client`): decodes its messages,
/// routes them to the socket of each namespace it joined, and runs the CONNECT handshakes.
///
/// Messages arrive one at a time from the session's transport task (the WebSocket reader or the
/// POST being handled); a CONNECT is handled to the end (auth hooks, reply, connection handlers)
/// before the next message is read, so a socket never gets an event before its handlers exist.
final class ClientConnection: Sendable {
    private struct State {
        var decoder: SocketPacketDecoder
        var sockets = ClientSockets()
        var closed = false
        /// Protocol v4: the automatic join of `/` (messages wait for it, so no CONNECT is handled
        /// meanwhile: it needs no `ClientSockets` reservation).
        var autoConnect: Task<Void, Never>?
    }

    let session: EngineSession
    let namespaces: NamespaceRegistry
    let environment: ServerEnvironment
    private let state: NIOLockedValueBox<State>
    private let timers: TimerSlots<Int>

    init(session: EngineSession, namespaces: NamespaceRegistry, environment: ServerEnvironment) {
        self.session = session
        self.namespaces = namespaces
        self.environment = environment
        let decoder = SocketPacketDecoder(version: session.version.socketIOVersion, maxAttachments: environment.configuration.maxAttachments)
        self.state = NIOLockedValueBox(State(decoder: decoder))
        self.timers = TimerSlots(clock: environment.clock)
    }

    /// Socket.IO protocol v4 (an Engine.IO v3 client, with `allowEIO3`).
    var isProtocolV4: Bool { session.version == .v3 }

    /// Arms the connect timeout: a session that joins no namespace in time is closed. Under
    /// protocol v4 the client is joined to `/` at once instead (it never asks), as socket.io's
    /// server does for EIO3 clients.
    func start() {
        if isProtocolV4 {
            _ = namespaces.namespace("/")  // socket.io's server always has it
            let join = Task { await self.connect(to: "/", auth: nil) }
            state.withLockedValue { $0.autoConnect = join }
            return
        }
        timers.arm(0, after: environment.configuration.connectTimeout) { [weak self] in
            guard let self, !self.state.withLockedValue({ $0.sockets.joinedAny }) else { return }
            self.session.logger.debug("closing: no namespace joined in time")
            self.session.close(.forcedClose)
        }
    }

    /// Waits for the automatic join of `/` (protocol v4) before the client's first message.
    private func awaitAutoConnect() async {
        guard let join = state.withLockedValue({ $0.autoConnect }) else { return }
        await join.value
        state.withLockedValue { $0.autoConnect = nil }
    }

    var isClosed: Bool { state.withLockedValue { $0.closed } }

    // MARK: - Receiving

    /// A text message (the Socket.IO packet, without Engine.IO's `4`).
    func receive(text: Substring) async {
        await receive { decoder throws(ProtocolError) in try decoder.decode(text: text) }
    }

    /// A binary message: the next attachment of a binary packet.
    func receive(binary: Data) async {
        await receive { decoder throws(ProtocolError) in try decoder.decode(binary: binary) }
    }

    /// Feeds one message to the decoder under the lock (it holds a binary packet's attachments
    /// so far), then dispatches the packet it completed, if any, outside the lock.
    private func receive(_ decode: (inout SocketPacketDecoder) throws(ProtocolError) -> SocketPacket?) async {
        await awaitAutoConnect()
        let decoded: Result<SocketPacket?, ProtocolError> = state.withLockedValue { state in
            guard !state.closed else { return .success(nil) }
            do throws(ProtocolError) {
                return .success(try decode(&state.decoder))
            } catch {
                return .failure(error)
            }
        }
        switch decoded {
        case .success(nil):
            return
        case .success(let packet?):
            await dispatch(packet)
        case .failure(let error):
            fail(.parseError(error.description))
        }
    }

    private func dispatch(_ packet: SocketPacket) async {
        let name = NamespaceRegistry.normalize(packet.namespace)
        let (socket, joining) = state.withLockedValue { state in
            (state.sockets.socket(name), packet.kind == .connect && state.sockets.beginJoining(name))
        }
        switch packet.kind {
        case .connect:
            // socket.io closes a client that connects twice to one namespace ("invalid state"):
            // so does one whose CONNECT to it is still being handled (see `ClientSockets`).
            guard joining else { return fail(.parseError("CONNECT to a namespace joined or being joined: \(name)")) }
            // Protocol v4 carries auth in the namespace's query (`/admin?token=1,`).
            await connect(to: name, auth: isProtocolV4 ? Self.queryObject(of: packet.namespace) : packet.data?.objectValue)
            state.withLockedValue { $0.sockets.endJoining(name) }
        case .event, .binaryEvent, .ack, .binaryAck, .disconnect:
            guard let socket else { return fail(.parseError("packet for a namespace not joined: \(name)")) }
            socket.received(packet)
        case .connectError:
            fail(.parseError("CONNECT_ERROR from a client"))
        }
    }

    /// `{"token":"1"}` of `/admin?token=1`; `nil` without a query.
    static func queryObject(of namespace: String) -> JSONObject? {
        guard let mark = namespace.firstIndex(of: "?") else { return nil }
        let parameters = EngineQuery(namespace[namespace.index(after: mark)...]).parameters
        return JSONObject(parameters.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
    }

    private func fail(_ reason: EngineCloseReason) {
        session.logger.debug("closing: invalid Socket.IO input", metadata: ["socketio.reason": "\(reason)"])
        session.close(reason)
    }

    // MARK: - Sockets

    /// Makes `socket` reachable for the client's packets; `false` when the session closed.
    func register(_ socket: ServerSocket) -> Bool {
        let registered = state.withLockedValue { state in
            guard !state.closed else { return false }
            state.sockets.join(socket)
            return true
        }
        if registered { timers.cancelAll() }
        return registered
    }

    /// `socket` left its namespace.
    func remove(_ socket: ServerSocket) {
        state.withLockedValue { $0.sockets.leave(socket) }
    }

    /// Sends a packet outside any socket (CONNECT replies and refusals).
    func write(_ packet: SocketPacket) {
        session.send(EngineFrame.frames(of: packet))
    }

    /// The server app closes the whole connection: every namespace gets DISCONNECT, then the
    /// session closes (socket.io's `socket.disconnect(true)`).
    func disconnectAll() {
        let sockets = state.withLockedValue { $0.sockets.all }
        for socket in sockets { socket.disconnect() }
        session.close(.forcedClose)
    }

    /// The Engine.IO session ended: every socket leaves with the matching reason.
    func engineClosed(_ reason: EngineCloseReason) {
        let sockets: [ServerSocket] = state.withLockedValue { state in
            state.closed = true
            state.decoder.reset()
            return state.sockets.removeAll()
        }
        timers.cancelAll()
        let socketReason = ServerDisconnectReason(reason)
        for socket in sockets { socket.finish(socketReason) }
    }
}
