import NIOCore
import NIOWebSocket

/// Notices a plain WebSocket client that is gone without a word (a phone that lost its network
/// sends no FIN, and an endpoint that only echoes never writes, so TCP never finds out): a
/// client quiet for `interval` is pinged, and one that then sends nothing, not even the pong,
/// within `timeout` is closed. Engine.IO sessions have a heartbeat of their own; the plain
/// endpoint had none, and such a connection kept its descriptor, task and queue for good.
///
/// Sits after NIO's frame decoder, in front of ``ServerWebSocketHandler``; every frame passes.
final class WebSocketHeartbeat: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let interval: TimeAmount
    private let timeout: TimeAmount
    /// Whether a frame came since the last check.
    private var heard = false
    private var timer: Scheduled<Void>?

    init(interval: Duration, timeout: Duration) {
        self.interval = TimeAmount(interval)
        self.timeout = TimeAmount(timeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added right after the upgrade: the connection is up.
        if context.channel.isActive { check(after: interval, context) { $0.quietForAnInterval($1) } }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        heard = true
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    /// A whole interval since the last check: a client that sent nothing is pinged.
    private func quietForAnInterval(_ context: ChannelHandlerContext) {
        guard !heard else { return keepListening(context) }
        let ping = WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(capacity: 0))
        context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
        check(after: timeout, context) { heartbeat, context in
            guard heartbeat.heard else { return context.close(promise: nil) }
            heartbeat.keepListening(context)
        }
    }

    private func keepListening(_ context: ChannelHandlerContext) {
        heard = false
        check(after: interval, context) { $0.quietForAnInterval($1) }
    }

    private func check(after delay: TimeAmount, _ context: ChannelHandlerContext, _ then: @escaping (WebSocketHeartbeat, ChannelHandlerContext) -> Void) {
        let bound = NIOLoopBound((self, context, then), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            let (heartbeat, context, then) = bound.value
            then(heartbeat, context)
        }
    }
}
