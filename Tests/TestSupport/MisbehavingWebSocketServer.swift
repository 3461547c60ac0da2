import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
public import NIOWebSocket

/// A WebSocket server that breaks RFC 6455 on purpose, for the client's tests: once a client
/// upgrades, it writes the frames it was given (masked ones too, which a server must never
/// send), then reports every frame the client sends back (its close frame, with the status).
public final class MisbehavingWebSocketServer: Sendable {
    public let port: Int
    /// The frames the client sent: opcode and unmasked payload.
    public let received: AsyncStream<(opcode: WebSocketOpcode, payload: [UInt8])>
    private let channel: any Channel

    private init(channel: any Channel, received: AsyncStream<(opcode: WebSocketOpcode, payload: [UInt8])>) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        self.received = received
    }

    /// Listens on a free loopback port; every upgraded connection gets `frames`.
    public static func start(sending frames: [WebSocketFrame]) async throws -> MisbehavingWebSocketServer {
        let (received, continuation) = AsyncStream<(opcode: WebSocketOpcode, payload: [UInt8])>.makeStream()
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Misbehaving(frames: frames) { continuation.yield($0) })
                }
            }
        )
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return MisbehavingWebSocketServer(channel: channel, received: received)
    }

    public func stop() async {
        try? await channel.close()
    }
}

private final class Misbehaving: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    let frames: [WebSocketFrame]
    let report: @Sendable ((opcode: WebSocketOpcode, payload: [UInt8])) -> Void

    init(frames: [WebSocketFrame], report: @escaping @Sendable ((opcode: WebSocketOpcode, payload: [UInt8])) -> Void) {
        self.frames = frames
        self.report = report
    }

    func handlerAdded(context: ChannelHandlerContext) {
        for frame in frames { context.write(wrapOutboundOut(frame), promise: nil) }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        report((frame.opcode, Array(frame.unmaskedData.readableBytesView)))
    }
}
