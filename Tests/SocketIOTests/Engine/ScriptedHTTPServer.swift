import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server on loopback for the connection pool's tests, answering by path:
/// - `/echo`: 200 with the request body (kept alive);
/// - `/close`: 200 with `Connection: close`, then closes;
/// - `/drop`: 200 kept alive by its headers, then closes anyway (a server's idle timeout);
/// - `/reset-reused`: on a connection's first request 200 (kept alive); on a later one no answer,
///   the connection reset (a RST: the server dropped a kept-alive connection the client reused);
/// - `/keep-alive?timeout=N`: 200 kept alive, announcing `Keep-Alive: timeout=N`;
/// - `/big`: 200 with 64 KiB of body;
/// - `/hang`: never answers;
/// - `/cookie?set=NAME=VALUE`: 200 with that `Set-Cookie` (and `Max-Age=0` for `NAME=`), the body
///   the request's `Cookie` header;
/// - a `CONNECT`: 407 (a proxy that wants credentials);
/// - `/socket.io/`: 401 (an Engine.IO server refusing every handshake, as an auth check in front
///   of it would).
/// It reports every connection it accepted and every one that closed, in order.
final class ScriptedHTTPServer: Sendable {
    enum Event: Sendable, Equatable {
        case accepted(Int)
        case closed(Int)
    }

    let port: Int
    let events: AsyncStream<Event>
    private let channel: any Channel
    private let counts: NIOLockedValueBox<Int>

    /// Connections accepted so far.
    var accepted: Int { counts.withLockedValue { $0 } }

    private init(channel: any Channel, events: AsyncStream<Event>, counts: NIOLockedValueBox<Int>) {
        self.channel = channel
        self.counts = counts
        self.port = channel.localAddress?.port ?? 0
        self.events = events
    }

    static func start(port: Int = 0) async throws -> ScriptedHTTPServer {
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let counts = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let number = counts.withLockedValue { count in
                    count += 1
                    return count
                }
                continuation.yield(.accepted(number))
                channel.closeFuture.whenComplete { _ in continuation.yield(.closed(number)) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder())
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        return ScriptedHTTPServer(channel: channel, events: events, counts: counts)
    }

    func stop() async {
        try? await channel.close()
    }

    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private var path = ""
        private var query = ""
        private var cookie = ""
        private var method = HTTPMethod.GET
        private var body = ByteBuffer()
        private var served = 0

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                path = String(head.uri.prefix { $0 != "?" })
                query = String(head.uri.drop { $0 != "?" }.dropFirst())
                cookie = head.headers["Cookie"].joined(separator: "; ")
                method = head.method
                body.clear()
            case .body(var part):
                body.writeBuffer(&part)
            case .end:
                respond(context)
            }
        }

        private func respond(_ context: ChannelHandlerContext) {
            let answer: ByteBuffer
            var headers = HTTPHeaders()
            var status = HTTPResponseStatus.ok
            switch path {
            case _ where method == .CONNECT:
                status = .proxyAuthenticationRequired
                answer = ByteBuffer()
            case "/hang":
                return
            case "/socket.io/":
                status = .unauthorized
                answer = ByteBuffer(string: #""not allowed""#)
            case "/reset-reused" where served > 0:
                // SO_LINGER 0: the close sends a RST, not a FIN.
                let channel = context.channel
                guard let socket = channel as? any SocketOptionProvider else { fatalError("not a socket channel") }
                socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
                return
            case "/cookie":
                let set = query.hasPrefix("set=") ? String(query.dropFirst(4)) : ""
                if !set.isEmpty { headers.add(name: "Set-Cookie", value: set.hasSuffix("=") ? set + "; Max-Age=0" : set + "; Path=/; HttpOnly") }
                answer = ByteBuffer(string: cookie)
            case "/keep-alive":
                headers.add(name: "Keep-Alive", value: query)
                answer = ByteBuffer(string: "kept")
            case "/big":
                answer = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
            case "/close":
                headers.add(name: "Connection", value: "close")
                answer = ByteBuffer(string: "bye")
            default:
                answer = body
            }
            served += 1
            headers.add(name: "Content-Length", value: String(answer.readableBytes))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(answer))), promise: nil)
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if path == "/close" || path == "/drop" {
                let context = NIOLoopBound(context, eventLoop: context.eventLoop)
                written.whenComplete { _ in context.value.close(promise: nil) }
            }
        }
    }
}
