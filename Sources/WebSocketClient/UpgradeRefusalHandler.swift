import NIOCore
import NIOHTTP1

/// Reads the answer to a WebSocket upgrade request that did not switch protocols, so the
/// refusal can say why: its status and the start of its body (Engine.IO servers explain a
/// refused handshake there, for example `{"code":5,"message":"Unsupported protocol version"}`).
///
/// It sits between the HTTP decoder and NIO's upgrade handler, passes every part on, and leaves
/// the pipeline as soon as the answer is `101 Switching Protocols`. For any other answer it
/// calls `refused` once: when the response ends, or when the connection closes first.
final class UpgradeRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// The most of the body kept for the report.
    static let bodyLimit = 4_096

    private let refused: (_ status: Int, _ body: String) -> Void
    private var status: Int?
    private var body: [UInt8] = []
    private var reported = false

    init(refused: @escaping (_ status: Int, _ body: String) -> Void) {
        self.refused = refused
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head) where head.status == .switchingProtocols:
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        case .head(let head):
            status = Int(head.status.code)
        case .body(let buffer):
            let room = Self.bodyLimit - body.count
            if room > 0 { body += buffer.readableBytesView.prefix(room) }
        case .end:
            context.fireChannelRead(data)
            report()
            return
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        report()
        context.fireChannelInactive()
    }

    private func report() {
        guard let status, !reported else { return }
        reported = true
        refused(status, String(decoding: body, as: UTF8.self))
    }
}

extension UpgradeRefusalHandler {
    /// Puts one in front of NIO's upgrade handler in `channel`'s pipeline (on its event loop).
    static func install(on channel: any Channel, refused: @escaping (_ status: Int, _ body: String) -> Void) throws {
        let upgrade = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPClientUpgradeHandler<Bool>.self)
        try channel.pipeline.syncOperations.addHandler(UpgradeRefusalHandler(refused: refused), position: .before(upgrade))
    }
}
