import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// Hands a ``WebSocketClientChannel``'s events to its handler in the promised order: `opened`
/// before any message (the server's first message can arrive in the same read as the 101 reply,
/// before the upgrade's future completes), nothing after the end, and the end exactly once.
final class WebSocketClientReporter: Sendable {
    private enum Phase {
        case connecting
        case open
        case ended
    }

    private let handler: @Sendable (WebSocketClientChannel.Event) -> Void
    private let phase = NIOLockedValueBox(Phase.connecting)

    init(_ handler: @escaping @Sendable (WebSocketClientChannel.Event) -> Void) {
        self.handler = handler
    }

    func opened() {
        let first = phase.withLockedValue { phase in
            guard case .connecting = phase else { return false }
            phase = .open
            return true
        }
        if first { handler(.opened) }
    }

    func message(_ message: WebSocketMessage) {
        let (deliver, openFirst) = phase.withLockedValue { phase -> (Bool, Bool) in
            switch phase {
            case .connecting:
                phase = .open
                return (true, true)
            case .open:
                return (true, false)
            case .ended:
                return (false, false)
            }
        }
        if openFirst { handler(.opened) }
        if deliver { handler(.message(message)) }
    }

    func end(_ end: WebSocketClientChannel.End) {
        let first = phase.withLockedValue { phase in
            if case .ended = phase { return false }
            phase = .ended
            return true
        }
        if first { handler(.ended(end)) }
    }
}

/// The client's end of the WebSocket: the server's frames become messages by RFC 6455
/// (``WebSocketMessageAssembler``, the same reading as the server's), pings are answered, pongs
/// handed on (fences), a server's close answered, a broken rule closed with its status; the end
/// is reported once.
final class WebSocketClientFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let reporter: WebSocketClientReporter
    /// A pong arrived, on the connection's event loop (with its channel).
    private let onPong: @Sendable (ByteBuffer, any Channel) -> Void
    private var assembler: WebSocketMessageAssembler
    /// Set (on the event loop) once the client wrote its close frame: the server's close then
    /// completes the handshake, unanswered.
    var closeSent = false

    init(maxMessageSize: Int, reporter: WebSocketClientReporter, onPong: @escaping @Sendable (ByteBuffer, any Channel) -> Void) {
        self.assembler = WebSocketMessageAssembler(maxSize: maxMessageSize, role: .client)
        self.reporter = reporter
        self.onPong = onPong
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch assembler.receive(unwrapInboundIn(data)) {
        case .none:
            break
        case .deliver(let message):
            reporter.message(message)
        case .pong(let payload):
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: payload)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .pongReceived(let payload):
            onPong(payload, context.channel)
        case .peerClosed(let code):
            reporter.end(.closed(code: code))
            // Answer with the server's status (RFC 6455 §5.5.1); the server then closes TCP.
            var payload = context.channel.allocator.buffer(capacity: 2)
            if let code { payload.writeInteger(code) }
            close(context, payload: payload)
        case .fail(let code, let reason):
            reporter.end(.failed(.protocolViolation(code: code, reason)))
            var payload = context.channel.allocator.buffer(capacity: 2)
            payload.writeInteger(code)
            close(context, payload: payload)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        reporter.end(.closed(code: nil))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // swift-nio's frame decoder refuses what it can tell from a frame's header.
        if let error = error as? NIOWebSocketError {
            let (code, reason): (UInt16, String) = switch error {
            case .invalidFrameLength: (WebSocketMessageAssembler.messageTooBig, "a frame over the size limit")
            case .fragmentedControlFrame: (WebSocketMessageAssembler.protocolError, "a fragmented control frame")
            case .multiByteControlFrameLength: (WebSocketMessageAssembler.protocolError, "a control frame over 125 bytes")
            }
            reporter.end(.failed(.protocolViolation(code: code, reason)))
            var payload = context.channel.allocator.buffer(capacity: 2)
            payload.writeInteger(code)
            close(context, payload: payload)
            return
        }
        reporter.end(.failed(.network("\(error)")))
        context.close(promise: nil)
    }

    private func close(_ context: ChannelHandlerContext, payload: ByteBuffer) {
        guard !closeSent else {
            context.close(promise: nil)
            return
        }
        closeSent = true
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: payload)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in channel.close(promise: nil) }
    }
}
