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

/// Turns WebSocket frames into messages, answers pings, hands pongs on (fences), reports the end.
final class WebSocketClientFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let reporter: WebSocketClientReporter
    private let onPong: @Sendable (ByteBuffer) -> Void

    init(reporter: WebSocketClientReporter, onPong: @escaping @Sendable (ByteBuffer) -> Void) {
        self.reporter = reporter
        self.onPong = onPong
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            reporter.message(.text(String(buffer: frame.unmaskedData)))
        case .binary:
            reporter.message(.binary(Data(frame.unmaskedData.readableBytesView)))
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode().map { UInt16(webSocketErrorCode: $0) }
            reporter.end(.closed(code: code))
            context.close(promise: nil)
        case .pong:
            onPong(frame.unmaskedData)
        case .continuation:
            break
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        reporter.end(.closed(code: nil))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        reporter.end(.failed(.network("\(error)")))
        context.close(promise: nil)
    }
}
