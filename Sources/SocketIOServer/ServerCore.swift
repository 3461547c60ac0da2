import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SocketIOProtocol
import SwitchboardCore

/// What the HTTP and WebSocket front ends share: sessions, namespaces, the plain endpoint.
final class ServerCore: Sendable {
    let environment: ServerEnvironment
    let sessions = SessionRegistry()
    let namespaces: NamespaceRegistry
    let plain: PlainWebSocketEndpoint
    /// Connections that have not sent a complete request head yet.
    let unfinished = UnfinishedRequests()
    /// Upgraded WebSocket connections, until they close.
    let webSockets = OpenWebSockets()
    /// The process's file descriptors: connections are accepted only while a reserve stays free.
    let descriptors: DescriptorBudget
    /// Raw Engine.IO endpoints (``SocketIOServer/engineIO(at:onConnection:)``): path → what
    /// gets each new socket.
    let rawMounts = NIOLockedValueBox<[String: @Sendable (EngineIOSocket) -> Void]>([:])

    /// The raw Engine.IO paths, sorted.
    var rawMountPaths: [String] { rawMounts.withLockedValue { $0.keys.sorted() } }

    /// Serves raw Engine.IO at `path` (normalized), `onConnection` getting each socket.
    func mountRaw(_ path: String, onConnection: @escaping @Sendable (EngineIOSocket) -> Void) {
        rawMounts.withLockedValue { $0[path] = onConnection }
    }

    /// Whether an accepted connection may stay: `false` when it would leave less than the
    /// reserve of the process's file descriptors free (close it then). The first refusal of a
    /// run is logged, and the first connection accepted again after one.
    func admitConnection(_ channel: any Channel) -> Bool {
        switch descriptors.acquire() {
        case .granted(let resumed):
            let descriptors = self.descriptors
            channel.closeFuture.whenComplete { _ in descriptors.release() }
            if resumed {
                environment.logger.notice("accepting connections again: file descriptors are free below the reserve")
            }
            return true
        case .refused(let open, let limit, let first):
            if first {
                environment.logger.warning(
                    "refusing new connections: \(open) of the process's \(limit) file descriptors are open, and \(descriptors.reserve) are kept in reserve; raise the limit (ulimit -n) or shed load",
                    metadata: ["socketio.fd.open": "\(open)", "socketio.fd.limit": "\(limit)"]
                )
            }
            return false
        }
    }

    /// The Engine.IO paths served: Socket.IO's, then the raw ones.
    var mounts: [String] { [environment.configuration.normalizedPath] + rawMountPaths }

    /// The mount serving `path` (with or without its trailing slash), if any.
    func mount(for path: some StringProtocol) -> String? {
        EngineRoute.mount(for: path, among: mounts)
    }

    init(environment: ServerEnvironment, descriptors: DescriptorBudget = .shared) {
        self.environment = environment
        self.descriptors = descriptors
        self.namespaces = NamespaceRegistry(environment: environment)
        self.plain = PlainWebSocketEndpoint(environment: environment)
    }

    /// Opens an Engine.IO session (on polling, or on `webSocket`) at `mount`, registered and
    /// running: the Socket.IO layer on Socket.IO's path, a raw ``EngineIOSocket`` on another.
    /// Throws when a session cap refuses it (nothing was opened). `first` (the WebSocket's open
    /// frame) is written before the application starts, so nothing it sends can precede it.
    func openSession(
        sid: String = Identifiers.make(),
        mount: String,
        version: EngineIOVersion = .v4,
        base64: Bool = false,
        webSocket: WebSocketWriter?,
        request: RequestInfo,
        sendingFirst first: EngineFrame? = nil
    ) throws(SessionRegistry.Refusal) -> EngineSession {
        let session = EngineSession(
            sid: sid,
            mount: mount,
            version: version,
            base64: base64,
            webSocket: webSocket,
            request: request,
            environment: environment,
            registry: sessions
        )
        let client: any EngineApplication
        if mount != environment.configuration.normalizedPath, let onConnection = rawMounts.withLockedValue({ $0[mount] }) {
            client = EngineIOSocket(session: session, onConnection: onConnection)
        } else {
            client = ClientConnection(session: session, namespaces: namespaces, environment: environment)
        }
        let admission = sessions.add(session, limits: sessionLimits)
        if case .refused(let refusal) = admission {
            environment.logger.info("session refused", metadata: ["socketio.reason": "\(refusal.message)", "socketio.address": "\(request.address ?? "?")"])
            throw refusal
        }
        if let first { webSocket?.send([first]) }
        session.start(client: client)
        client.start()
        let transport: SocketIOServer.TransportKind = webSocket == nil ? .polling : .websocket
        session.logger.debug("Engine.IO session open", metadata: ["socketio.transport": "\(transport.rawValue)"])
        environment.events.emit(.sessionOpened(sid: session.sid, transport: transport, address: request.address))
        // Opened while the server stops (after `closeAll` took its list): close it like the rest.
        if admission == .stopping { session.close(.serverShuttingDown) }
        return session
    }

    var sessionLimits: SessionRegistry.Limits {
        SessionRegistry.Limits(total: environment.configuration.maxSessions, perAddress: environment.configuration.maxSessionsPerAddress)
    }

    /// The `open` packet of session `sid`.
    func openFrame(sid: String, transport: SocketIOServer.TransportKind) -> EngineFrame {
        .text("0" + environment.handshake(sid: sid, transport: transport).json)
    }

    /// The server starts stopping: sessions opened from now on are closed as soon as they are
    /// made, so none is admitted (nor restored) while the cluster is left and the sessions
    /// written back.
    func stopAdmitting() {
        _ = sessions.stop()
    }

    /// Closes every session, plain WebSocket and unfinished connection (the server is
    /// stopping); sessions opened from now on are closed as soon as they are made.
    func closeAll() {
        for session in sessions.stop() { session.close(.serverShuttingDown) }
        plain.closeAll()
        unfinished.closeAll()
    }
}
