import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import SwitchboardCore

/// Every connection the server accepts: HTTP/1.1 (polling and the other routes, answered by
/// Hummingbird), or a WebSocket upgrade served from channel handlers.
///
/// An upgraded connection holds no task: ``ServerWebSocketHandler`` turns frames into messages
/// on the event loop and an ``InboundPump`` runs a task only while messages wait. (Hummingbird's
/// WebSocket channel keeps a task per connection with a task group under it, about 16 KB of task
/// stacks per idle WebSocket.) A ``RequestHeadGuardHandler`` sits in front of every connection.
struct EngineChildChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// Upgraded: the pipeline serves it from here on.
        case webSocket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// An upgrade was asked for and refused: answered with 400 and the reason.
        case failedUpgrade(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, ServerCore.WebSocketRefusal)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let core: ServerCore
    /// How long a kept-alive HTTP connection may sit idle.
    let idleTimeout: Duration?
    /// How long a connection may take to send its first request head.
    let headTimeout: TimeAmount
    /// Whether an HTTP connection's requests are served by a task preferring its event loop
    /// (long-polling with ``SocketIOServer/Configuration/handlersOnEventLoop``, on a server of
    /// our own; a server mounted in an app serves the app's routes too, so not there).
    let onEventLoop: Bool

    init(responder: @escaping HTTPChannelHandler.Responder, core: ServerCore, idleTimeout: Duration?, headTimeout: TimeAmount, onEventLoop: Bool = false) {
        self.responder = Self.redirectingLateUpgrades(responder)
        self.core = core
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
        self.onEventLoop = onEventLoop
    }

    /// Past the process's descriptor reserve, an accepted connection is closed at once.
    struct OutOfDescriptors: Error {}

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard core.admitConnection(channel) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(OutOfDescriptors())
        }
        return channel.eventLoop.makeCompletedFuture {
            let core = self.core
            let idleTimeout = self.idleTimeout
            let upgradeAttempted = NIOLoopBoundBox(false, eventLoop: channel.eventLoop)
            let target = NIOLoopBoundBox<ServerCore.WebSocketTarget?>(nil, eventLoop: channel.eventLoop)
            let refusal = NIOLoopBoundBox<ServerCore.WebSocketRefusal?>(nil, eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: WebSocketMessageAssembler.decoderFrameLimit(forMessagesUpTo: core.environment.configuration.maxPayload),
                shouldUpgrade: { channel, head in
                    upgradeAttempted.value = true
                    guard let request = try? HTTPRequest(head, secure: false, splitCookie: false) else {
                        refusal.value = ServerCore.WebSocketRefusal(error: .badRequest)
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                    switch core.webSocketTarget(for: request, channel: channel) {
                    case .success(let decided):
                        target.value = decided
                        return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                    case .failure(let refused):
                        refusal.value = refused
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard let decided = target.value else { throw ChannelError.inappropriateOperationForState }
                        target.value = nil
                        try FirstRequestErrorHandler.remove(from: channel)
                        try core.attach(decided, to: channel)
                        return UpgradeResult.webSocket
                    }
                }
            )
            let upgrades = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try FirstRequestErrorHandler.remove(from: channel)
                        try channel.pipeline.syncOperations.addHandler(ClientCloseHandler(heldPolls: core.environment.heldPolls), position: .first)
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: idleTimeout, logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)
                        )
                        guard upgradeAttempted.value else { return .notUpgraded(http) }
                        return .failedUpgrade(http, refusal.value ?? ServerCore.WebSocketRefusal(error: .badRequest))
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(upgradeConfiguration: upgrades)
            configuration.enablePipelining = false  // NIOAsyncChannel takes one request at a time
            configuration.enableErrorHandling = false  // Hummingbird answers malformed requests
            configuration.enableResponseHeaderValidation = false  // HTTPTypes validates them
            let upgradeResult = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            try channel.pipeline.syncOperations.addHandler(FirstRequestErrorHandler())
            try channel.pipeline.syncOperations.addHandler(
                RequestHeadGuardHandler(timeout: headTimeout, unfinished: core.unfinished), position: .first)
            return Value(upgradeResult: upgradeResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        let id = ObjectIdentifier(value.channel)
        let unfinished = core.unfinished
        var logger = logger
        logger.handler = DeliberateCloseLogHandler(base: logger.handler) { unfinished.wasClosedOnPurpose(id) }
        do {
            switch try await value.upgradeResult.get() {
            case .webSocket:
                break  // its handlers serve it; nothing waits here
            case .notUpgraded(let http) where onEventLoop:
                // A request is read, answered and written on the connection's thread, and a
                // long-poll's response is written from where the event that completes it ran.
                let logger = logger
                await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
                    await handleHTTP(asyncChannel: http, logger: logger)
                }
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .failedUpgrade(let http, let refusal):
                logger.debug("WebSocket upgrade refused", metadata: ["engineio.error": "\(refusal.error.rawValue)"])
                await Self.refuseUpgrade(http, refusal, logger: logger)
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("the connection closed before its request")
        } catch {
            logger.error("the connection ended before its request was served", metadata: ["error.type": "\(error)"])
        }
        unfinished.finished(id)
    }

    /// 400 with the JS server's JSON error, and the connection closed.
    private static func refuseUpgrade(
        _ http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, _ refusal: ServerCore.WebSocketRefusal, logger: Logger
    ) async {
        do {
            try await http.executeThenClose { _, outbound in
                let body = ByteBuffer(string: refusal.error.body(message: refusal.message))
                let head = HTTPResponse(status: .badRequest, headerFields: [
                    .connection: "close", .contentType: "application/json", .contentLength: "\(body.readableBytes)",
                ])
                try await outbound.write(contentsOf: [.head(head), .body(body), .end(nil)])
            }
        } catch {
            logger.trace("could not answer a refused upgrade", metadata: ["error.type": "\(error)"])
        }
    }

    /// NIO upgrades only a connection's first request: a later request asking for a WebSocket
    /// is redirected to its own URL with the connection closed, so the client asks again on a
    /// fresh one.
    private static func redirectingLateUpgrades(_ responder: @escaping HTTPChannelHandler.Responder) -> HTTPChannelHandler.Responder {
        struct RedirectCloseError: Error {}
        return { request, writer, channel in
            guard request.headers[.upgrade]?.lowercased() == "websocket" else {
                return try await responder(request, writer, channel)
            }
            var location = request.uri.path
            if let query = request.uri.query { location += "?\(query)" }
            let response = HTTPResponse(status: .temporaryRedirect, headerFields: [.connection: "close", .location: location])
            try await writer.writeResponse(response)
            throw RedirectCloseError()
        }
    }
}
