import SwitchboardCore
import NIOCore
import NIOWebSocket

/// Where an upgraded connection's messages go. Called on the channel's event loop.
protocol WebSocketInbound: AnyObject, Sendable {
    /// A complete message, in order.
    func received(_ message: WebSocketMessage)
    /// The connection ended (once, after the last message): the client closed it, broke a
    /// rule, or the transport failed.
    func ended(_ reason: EngineCloseReason)
}

/// The server's end of an upgraded WebSocket, on the connection's event loop: frames become
/// messages (``WebSocketMessageAssembler``), pings are answered, a client's close is answered and
/// the connection closed; no task per connection.
///
/// Sits after NIO's frame decoder; messages out are written by ``WebSocketWriter`` at the front
/// of the pipeline.
final class ServerWebSocketHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var assembler: WebSocketMessageAssembler
    private let inbound: any WebSocketInbound
    /// The connection's writer: whether the server already sent its close frame.
    private let writer: WebSocketWriter
    private var ended = false
    /// The client broke a rule and was sent the close frame: what it still sends is dropped.
    private var failed = false

    init(maxMessageSize: Int, inbound: any WebSocketInbound, writer: WebSocketWriter) {
        self.assembler = WebSocketMessageAssembler(maxSize: maxMessageSize, role: .server)
        self.inbound = inbound
        self.writer = writer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        switch assembler.receive(unwrapInboundIn(data)) {
        case .none, .pongReceived:
            break
        case .deliver(let message):
            inbound.received(message)
        case .pong(let payload):
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
        case .peerClosed(let code):
            end(.transportClose)
            // Answer with the client's status (RFC 6455 §5.5.1), then close.
            var payload = context.channel.allocator.buffer(capacity: 2)
            if let code { payload.writeInteger(code) }
            close(context, payload: payload)
        case .fail(let code, let reason):
            end(.transportError(reason))
            failed = true
            var payload = context.channel.allocator.buffer(capacity: 2)
            payload.writeInteger(code)
            fail(context, payload: payload)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut its side without a close frame (half-closure is allowed on the
        // server's connections): nothing more can arrive.
        if let event = event as? ChannelEvent, event == .inputClosed {
            end(.transportClose)
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end(.transportError("\(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(.transportClose)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end(.transportClose)
    }

    private func end(_ reason: EngineCloseReason) {
        guard !ended else { return }
        ended = true
        inbound.ended(reason)
    }

    /// Fails the connection: the close frame with the status, then only the server's side of
    /// TCP is shut (a FIN). Closing the socket while the client's later frames sit unread in it
    /// would reset the connection, and a reset can discard the close frame before the client
    /// reads it. The rest closes when the client closes its side, or after the close
    /// handshake's bound (``WebSocketWriter/closeHandshakeLimit``).
    private func fail(_ context: ChannelHandlerContext, payload: ByteBuffer) {
        sendClose(context, payload: payload) { channel in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: WebSocketWriter.closeHandshakeLimit) { channel.close(promise: nil) }
        }
    }

    private func close(_ context: ChannelHandlerContext, payload: ByteBuffer) {
        sendClose(context, payload: payload) { $0.close(promise: nil) }
    }

    /// Writes the server's close frame, then `then`; when the server already sent its close
    /// (the client's close completes the handshake: no second close frame may follow the first,
    /// RFC 6455 §5.5.1), closes at once.
    private func sendClose(_ context: ChannelHandlerContext, payload: ByteBuffer, then: @escaping @Sendable (any Channel) -> Void) {
        guard !writer.closeSentOnLoop else {
            context.close(promise: nil)
            return
        }
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in then(channel) }
    }
}
