import Foundation
import HTTPTypes
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SocketIOProtocol
import SwitchboardCore

extension ServerCore {
    /// What an accepted WebSocket upgrade serves.
    enum WebSocketTarget: Sendable {
        /// A WebSocket-only Engine.IO session.
        case session(RequestInfo, mount: String, version: EngineIOVersion, base64: Bool)
        /// A WebSocket taking over a polling session.
        case upgrade(EngineSession)
        /// The plain WebSocket endpoint.
        case plain(RequestInfo)
    }

    /// A refused WebSocket upgrade: answered 400 (as socket.io's server answers every refused
    /// upgrade) with the JS server's `{"code":n,"message":"…"}` body, so a WebSocket-only client
    /// learns why (a revision the server does not speak, a session cap, an unknown `sid`).
    struct WebSocketRefusal: Error, Sendable, Hashable {
        var error: EngineHTTPError
        var message: String?
    }

    /// Decides a WebSocket upgrade: a WebSocket-only Engine.IO session, the upgrade of a polling
    /// session (with its `sid`), or the plain endpoint.
    func webSocketTarget(for head: HTTPRequest, channel: any Channel) -> Result<WebSocketTarget, WebSocketRefusal> {
        let configuration = environment.configuration
        let (path, rawQuery) = EngineQuery.split(head.path ?? "/")
        let cors = CORSDecision(policy: configuration.allowedOrigins, origin: head.headerFields[.origin])
        if case .refuse = cors { return .failure(WebSocketRefusal(error: .forbidden)) }
        let query = EngineQuery(rawQuery)
        let request = RequestInfo(
            headers: Self.headerDictionary(head),
            query: query.parameters,
            address: channel.remoteAddress.flatMap(Self.describe),
            url: head.path ?? "/",
            time: Date()
        )
        if let mount = mount(for: path) {
            // The JS server accepts a wrong EIO and then drops the socket; a 400 says more.
            guard query.transport == "websocket", configuration.transports.contains(.websocket) else {
                return .failure(WebSocketRefusal(error: .unknownTransport))
            }
            guard let version = query.version(allowEIO3: configuration.allowEIO3) else {
                return .failure(WebSocketRefusal(error: .unsupportedProtocolVersion))
            }
            if let sid = query.sid {
                guard let session = sessions[sid], session.mount == mount else {
                    return .failure(WebSocketRefusal(error: .unknownSession))
                }
                guard session.version == version, session.canUpgrade else { return .failure(WebSocketRefusal(error: .badRequest)) }
                return .success(.upgrade(session))
            }
            if let refusal = sessions.admits(address: request.address, limits: sessionLimits) {
                return .failure(WebSocketRefusal(error: .forbidden, message: refusal.message))
            }
            return .success(.session(request, mount: mount, version: version, base64: query.parameters["b64"] == "1"))
        }
        if let plainPath = configuration.plainWebSocketPath, path == plainPath {
            return .success(.plain(request))
        }
        return .failure(WebSocketRefusal(error: .badRequest))
    }

    /// Serves an upgraded connection from its handlers: the writer at the front of the
    /// pipeline, ``ServerWebSocketHandler`` after NIO's frame decoder, the messages handed to
    /// the session in order by an ``InboundPump``. Call on the channel's event loop, right after
    /// the upgrade. The session is opened (or takes over the polling one) in the pump's task:
    /// nothing of the session or the application runs on the event loop.
    func attach(_ target: WebSocketTarget, to channel: any Channel) throws {
        let configuration = environment.configuration
        webSockets.add(channel)
        let writer = try WebSocketWriter.install(on: channel, limit: configuration.maxQueuedBytes)
        let inbound: any WebSocketInbound
        switch target {
        case .plain(let request):
            let mailbox = MessageMailbox(reading: .autoRead(of: channel))
            plain.serve(mailbox, writer: writer, request: request)
            inbound = mailbox
            try channel.pipeline.syncOperations.addHandler(
                WebSocketHeartbeat(interval: configuration.pingInterval, timeout: configuration.pingTimeout))
        case .upgrade(let session):
            let slot = NIOLockedValueBox<EngineSession?>(session)
            let pump = sessionPump(slot, writer: writer, channel: channel)
            pump.start {
                guard session.upgradeRequested(by: writer) else {
                    slot.withLockedValue { $0 = nil }
                    writer.close()
                    return
                }
            }
            inbound = pump
        case .session(let request, let mount, let version, let base64):
            let slot = NIOLockedValueBox<EngineSession?>(nil)
            let pump = sessionPump(slot, writer: writer, channel: channel)
            pump.start {
                let sid = Identifiers.make()
                do {
                    // Registered first (a cap may refuse it, when another took the last place
                    // since the upgrade was decided); the open frame is written before the
                    // application starts, so nothing it sends can precede it.
                    let session = try self.openSession(
                        sid: sid, mount: mount, version: version, base64: base64, webSocket: writer, request: request,
                        sendingFirst: self.openFrame(sid: sid, transport: .websocket)
                    )
                    slot.withLockedValue { $0 = session }
                } catch {
                    writer.close()
                }
            }
            inbound = pump
        }
        try channel.pipeline.syncOperations.addHandler(
            ServerWebSocketHandler(maxMessageSize: configuration.maxPayload, inbound: inbound, writer: writer))
    }

    /// Hands `writer`'s messages to the session in `slot` (none: the session was refused or
    /// the upgrade abandoned), on the connection's event loop only when
    /// ``SocketIOServer/Configuration/handlersOnEventLoop`` asks for it (reading, decoding,
    /// handlers and their writes on one thread).
    private func sessionPump(_ slot: NIOLockedValueBox<EngineSession?>, writer: WebSocketWriter, channel: any Channel) -> InboundPump {
        InboundPump(
            reading: .autoRead(of: channel),
            executor: environment.configuration.handlersOnEventLoop ? EventLoopTaskExecutor(channel.eventLoop) : nil,
            deliver: { message in
                guard let session = slot.withLockedValue({ $0 }) else { return }
                switch message {
                case .text(let text):
                    await session.receive(text: text, from: writer)
                case .binary(let data):
                    await session.receive(binary: data, from: writer)
                }
            },
            finish: { reason in
                slot.withLockedValue { $0 }?.webSocketEnded(writer, reason: reason)
                writer.close()
            }
        )
    }
}
