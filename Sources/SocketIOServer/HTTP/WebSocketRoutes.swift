import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import SocketIOProtocol
import SwitchboardCore

extension ServerCore {
    typealias UpgradeHandler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    /// Decides a WebSocket upgrade: a WebSocket-only Engine.IO session, the upgrade of a polling
    /// session (with its `sid`), or the plain endpoint. Anything else gets 400.
    func shouldUpgrade(_ head: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<UpgradeHandler> {
        let configuration = environment.configuration
        let (path, rawQuery) = EngineQuery.split(head.path ?? "/")
        let cors = CORSDecision(policy: configuration.allowedOrigins, origin: head.headerFields[.origin])
        if case .refuse = cors { return .dontUpgrade }
        let query = EngineQuery(rawQuery)
        let request = RequestInfo(
            headers: Self.headerDictionary(head.headerFields),
            query: query.parameters,
            address: channel.remoteAddress.flatMap(Self.describe),
            url: head.path ?? "/",
            time: Date()
        )
        if let mount = mount(for: path) {
            // The JS server accepts a wrong EIO and then drops the socket; a 400 says more.
            let version: EngineIOVersion = query.eio == "4" ? .v4 : .v3
            guard query.transport == "websocket", version == .v4 || configuration.allowEIO3,
                  configuration.transports.contains(.websocket) else {
                return .dontUpgrade
            }
            if let sid = query.sid {
                guard let session = sessions[sid], session.mount == mount, session.version == version, session.canUpgrade else { return .dontUpgrade }
                return .upgrade([:]) { inbound, _, _ in
                    try await self.onConnectionLoop(channel) {
                        try await self.serveUpgrade(of: session, inbound: inbound, channel: channel)
                    }
                }
            }
            // A session cap refuses it: the upgrade is refused (the WebSocket library answers a
            // refused upgrade itself, 400 with no body; a polling handshake gets the JSON 403).
            if sessions.admits(address: request.address, limits: sessionLimits) != nil { return .dontUpgrade }
            return .upgrade([:]) { inbound, _, _ in
                try await self.onConnectionLoop(channel) {
                    try await self.serveWebSocketSession(
                        inbound: inbound, channel: channel, request: request, mount: mount, version: version, base64: query.parameters["b64"] == "1"
                    )
                }
            }
        }
        if let plainPath = configuration.plainWebSocketPath, path == plainPath {
            return .upgrade([:]) { inbound, _, _ in
                try await self.plain.serve(inbound: inbound, channel: channel, request: request)
            }
        }
        return .dontUpgrade
    }

    /// Runs `body` preferring `channel`'s event loop when ``SocketIOServer/Configuration/handlersOnEventLoop``
    /// asks for it (reading, decoding, handlers and their writes on one thread), else as it is.
    private func onConnectionLoop(_ channel: any Channel, _ body: () async throws -> Void) async throws {
        guard environment.configuration.handlersOnEventLoop else { return try await body() }
        try await withTaskExecutorPreference(EventLoopTaskExecutor(channel.eventLoop)) { try await body() }
    }

    /// A WebSocket-only session: the `open` frame, then every message until the socket closes.
    private func serveWebSocketSession(
        inbound: WebSocketInboundStream, channel: any Channel, request: RequestInfo, mount: String, version: EngineIOVersion, base64: Bool
    ) async throws {
        let writer = try await WebSocketWriter.install(on: channel, limit: environment.configuration.maxQueuedBytes)
        let sid = Identifiers.make()
        let session: EngineSession
        do {
            // Registered first (a cap may refuse it, when another took the last place since the
            // upgrade was decided), but nothing can be sent before the open frame: the
            // application starts below, after it.
            session = try openSession(
                sid: sid, mount: mount, version: version, base64: base64, webSocket: writer, request: request,
                sendingFirst: openFrame(sid: sid, transport: .websocket)
            )
        } catch {
            writer.close()
            return
        }
        await read(inbound, into: session, from: writer)
    }

    /// A WebSocket taking over a polling session: probe, upgrade, then every message.
    private func serveUpgrade(of session: EngineSession, inbound: WebSocketInboundStream, channel: any Channel) async throws {
        let writer = try await WebSocketWriter.install(on: channel, limit: environment.configuration.maxQueuedBytes)
        guard session.upgradeRequested(by: writer) else {
            writer.close()
            return
        }
        await read(inbound, into: session, from: writer)
    }

    private func read(_ inbound: WebSocketInboundStream, into session: EngineSession, from writer: WebSocketWriter) async {
        do {
            for try await message in inbound.messages(maxSize: environment.configuration.maxPayload) {
                switch message {
                case .text(let text):
                    await session.receive(text: text, from: writer)
                case .binary(let buffer):
                    await session.receive(binary: Data(buffer.readableBytesView), from: writer)
                }
            }
            session.webSocketEnded(writer, reason: .transportClose)
        } catch {
            session.webSocketEnded(writer, reason: .transportError("\(error)"))
        }
        writer.close()
    }
}
