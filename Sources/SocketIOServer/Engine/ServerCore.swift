import Foundation
import Logging
import SocketIOProtocol

/// What the HTTP and WebSocket front ends share: sessions, namespaces, the plain endpoint.
final class ServerCore: Sendable {
    let environment: ServerEnvironment
    let sessions = SessionRegistry()
    let namespaces: NamespaceRegistry
    let plain: PlainWebSocketEndpoint

    init(environment: ServerEnvironment) {
        self.environment = environment
        self.namespaces = NamespaceRegistry(environment: environment)
        self.plain = PlainWebSocketEndpoint(environment: environment)
    }

    /// Opens an Engine.IO session (on polling, or on `webSocket`), registered and running.
    func openSession(sid: String = Identifiers.make(), webSocket: WebSocketWriter?, request: RequestInfo) -> EngineSession {
        let session = EngineSession(
            sid: sid,
            webSocket: webSocket,
            request: request,
            environment: environment,
            registry: sessions
        )
        let client = ClientConnection(session: session, namespaces: namespaces, environment: environment)
        sessions.add(session)
        session.start(client: client)
        client.start()
        let transport: SocketIOServer.TransportKind = webSocket == nil ? .polling : .websocket
        session.logger.debug("Engine.IO session open", metadata: ["socketio.transport": "\(transport.rawValue)"])
        environment.events.emit(.sessionOpened(sid: session.sid, transport: transport, address: request.address))
        return session
    }

    /// The `open` packet of session `sid`.
    func openFrame(sid: String, transport: SocketIOServer.TransportKind) -> EngineFrame {
        .text("0" + environment.handshake(sid: sid, transport: transport).json)
    }

    /// Closes every session and plain WebSocket (the server is stopping).
    func closeAll() {
        for session in sessions.all { session.close(.serverShuttingDown) }
        plain.closeAll()
    }
}
