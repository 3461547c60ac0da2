public import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A minimal Engine.IO v4 / Socket.IO v5 server over WebSocket that handles events the way
/// socket.io's Node server does: the events decoded from one read are dispatched when that read
/// has been handled (Node's "next tick"), and an event whose socket disconnected meanwhile — a
/// namespace DISCONNECT in the same read — is dropped ("ignore packet received after
/// disconnection"). It answers WebSocket pings at once, as Node's `ws` does.
///
/// Every namespace accepts a CONNECT. What happened is reported on ``records``.
public final class NextTickServer: Sendable {
    /// What the server did with a packet.
    public enum Record: Sendable, Equatable {
        /// An event packet reached its handler (the packet's text, e.g. `42["echo","hi"]`).
        case dispatched(String)
        /// An event packet was dropped: its socket disconnected in the same read.
        case dropped(String)
        /// A namespace DISCONNECT (the packet's text).
        case disconnected(String)
    }

    public let port: Int
    /// Every record, in order, from the start.
    public let records: AsyncStream<Record>
    private let channel: any Channel
    private let continuation: AsyncStream<Record>.Continuation

    private init(channel: any Channel, records: AsyncStream<Record>, continuation: AsyncStream<Record>.Continuation) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        self.records = records
        self.continuation = continuation
    }

    /// `ws://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts listening on a free loopback port; with `answersPings` false it never answers a
    /// WebSocket ping (a peer that never confirms what it read).
    public static func start(answersPings: Bool = true) async throws -> NextTickServer {
        let (records, continuation) = AsyncStream<Record>.makeStream()
        let upgrader = NIOWebSocketServerUpgrader(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NextTickHandler(answersPings: answersPings, report: { continuation.yield($0) }))
                }
            }
        )
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                )
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return NextTickServer(channel: channel, records: records, continuation: continuation)
    }

    public func stop() async {
        try? await channel.close()
        continuation.finish()
    }
}

/// One client connection: Engine.IO framing, CONNECT replies, the next-tick dispatch.
private final class NextTickHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let answersPings: Bool
    private let report: @Sendable (NextTickServer.Record) -> Void
    /// Events read and not yet dispatched: `(namespace, packet text)`.
    private var pending: [(String, String)] = []

    init(answersPings: Bool, report: @escaping @Sendable (NextTickServer.Record) -> Void) {
        self.answersPings = answersPings
        self.report = report
    }

    func handlerAdded(context: ChannelHandlerContext) {
        send(#"0{"sid":"next-tick","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#, context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            guard answersPings else { return }
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: context.channel.allocator.buffer(capacity: 0))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        case .text:
            handle(String(buffer: frame.unmaskedData), context: context)
        default:
            return
        }
    }

    /// The read is handled: Node's next tick runs the events' handlers now.
    func channelReadComplete(context: ChannelHandlerContext) {
        for (_, packet) in pending { report(.dispatched(packet)) }
        pending.removeAll()
        context.fireChannelReadComplete()
    }

    private func handle(_ text: String, context: ChannelHandlerContext) {
        guard text.first == "4" else { return }  // Engine.IO message; pongs and close need no answer
        let packet = String(text.dropFirst())
        let namespace = Self.namespace(of: packet)
        switch packet.first {
        case "0":
            let prefix = namespace == "/" ? "" : namespace + ","
            send("40" + prefix + #"{"sid":"socket-\#(UUID().uuidString.prefix(6))"}"#, context: context)
        case "1":
            for (eventNamespace, event) in pending where eventNamespace == namespace { report(.dropped(event)) }
            pending.removeAll { $0.0 == namespace }
            report(.disconnected(packet))
        case "2":
            pending.append((namespace, packet))
        default:
            return
        }
    }

    private func send(_ text: String, context: ChannelHandlerContext) {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: text))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    /// `2/chat,["a"]` → `/chat`; `2["a"]` → `/`.
    private static func namespace(of packet: String) -> String {
        let body = packet.dropFirst()
        guard body.first == "/", let comma = body.firstIndex(of: ",") else { return "/" }
        return String(body[..<comma])
    }
}
