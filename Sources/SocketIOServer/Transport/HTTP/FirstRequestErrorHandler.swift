import NIOCore
import NIOHTTP1

/// Last in a new connection's pipeline while its first request is read, until Hummingbird or the
/// WebSocket handlers take the connection over: answers a head NIO's decoder cannot parse
/// (malformed, or over the decoder's size limits) and closes the connection.
///
/// Hummingbird answers such a head itself, but only from the second request on. Before the
/// first one completes, the upgrade negotiation waits for a request that never comes: without
/// this handler the connection got no answer and stayed open for good, a descriptor each.
/// It answers 431 for a head too large (as Node's HTTP server does), 400 for any other.
final class FirstRequestErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var answered = false

    /// Takes the handler out of `channel`'s pipeline: the first request was read, and what
    /// serves the connection now answers its errors. Call on the channel's event loop.
    static func remove(from channel: any Channel) throws {
        let pipeline = channel.pipeline.syncOperations
        pipeline.removeHandler(context: try pipeline.context(handlerType: Self.self), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        guard !answered else { return }
        answered = true
        let status: HTTPResponseStatus = error == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.close(promise: nil)
    }
}
