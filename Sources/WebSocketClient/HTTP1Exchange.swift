package import NIOCore
package import NIOHTTP1
import NIOSSL

/// One HTTP/1.1 request, as the polling transport makes them: a method, the request target
/// (path and query), extra headers and an optional body. `Host` and `Content-Length` are added.
package struct HTTP1Request: Sendable {
    package var method: HTTPMethod
    /// Path and query (`/socket.io/?EIO=4&transport=polling`).
    package var target: String
    package var headers: [(String, String)]
    package var body: ByteBuffer?
    /// Whether the server may get the request twice without harm. A request whose reused
    /// connection closes before a byte of the answer came is sent again, once, on a new
    /// connection only when it is repeatable: the server may have read it and acted on it
    /// already (an Engine.IO poll whose answer the cut connection lost, a POST it handled).
    /// One the connection could not take at all (closed before it was written) is always sent again.
    package var repeatable: Bool

    package init(
        method: HTTPMethod, target: String, headers: [(String, String)] = [], body: ByteBuffer? = nil, repeatable: Bool = false
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.repeatable = repeatable
    }
}

/// A whole response: status, headers and the body collected up to the caller's limit.
package struct HTTP1Response: Sendable {
    package var status: HTTPResponseStatus
    package var headers: HTTPHeaders
    package var body: ByteBuffer
    /// Whether the connection may carry another request.
    package var keepAlive: Bool
}

/// Why a request failed.
package enum HTTP1ClientError: Error, Hashable, CustomStringConvertible {
    /// The TCP connection (to the server, or to the proxy) could not be made.
    case cannotConnect(host: String, port: Int, String)
    /// TLS could not be set up (a bad trust-root file, for one).
    case tlsSetup(String)
    /// The process is out of file descriptors (see `DescriptorBudget`).
    case outOfDescriptors(open: Int, limit: Int)
    /// The proxy refused the `CONNECT` tunnel with this status.
    case proxyRefused(status: Int)
    /// The connection had closed before the request could be written: nothing reached the server.
    case notSent
    /// The connection closed before the response was complete; `beforeResponse` when not a byte
    /// of it had come (a kept-alive connection the server had just closed — or one cut after the
    /// server read the request, or even answered it: which, the client cannot tell).
    case connectionClosed(beforeResponse: Bool)
    /// The body was larger than the caller's limit.
    case bodyTooLarge(limit: Int)
    /// The response did not complete within the request's timeout.
    case timedOut
    /// The pool was shut down.
    case shutDown

    package var description: String {
        switch self {
        case .cannotConnect(let host, let port, let detail): "cannot connect to \(host):\(port): \(detail)"
        case .tlsSetup(let detail): "TLS setup failed: \(detail)"
        case .outOfDescriptors(let open, let limit): "out of file descriptors: \(open) of \(limit) open"
        case .proxyRefused(let status): "the proxy refused the tunnel: HTTP \(status)"
        case .notSent: "the connection closed before the request was written"
        case .connectionClosed(let beforeResponse):
            beforeResponse ? "the connection closed before the response" : "the connection closed in the middle of the response"
        case .bodyTooLarge(let limit): "the response body is larger than \(limit) bytes"
        case .timedOut: "the response timed out"
        case .shutDown: "the HTTP client was shut down"
        }
    }
}

/// The last handler of an HTTP/1.1 client connection: one request at a time, its response
/// collected whole and handed to the request's promise. Confined to its channel's event loop.
final class HTTP1ExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private struct Exchange {
        var promise: EventLoopPromise<HTTP1Response>
        var maxBodySize: Int
        var head: HTTPResponseHead?
        var body: ByteBuffer?
        var timeout: Scheduled<Void>?
    }

    /// How the `Host` header and the request target are written.
    private let host: String
    private let absolutePrefix: String?
    private var exchange: Exchange?
    private var context: ChannelHandlerContext?

    /// `absolutePrefix` (`http://host:port`) makes targets absolute, as a forward proxy wants them.
    init(host: String, absolutePrefix: String?) {
        self.host = host
        self.absolutePrefix = absolutePrefix
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        fail(.connectionClosed(beforeResponse: exchange?.head == nil))
    }

    /// Writes `request`; its response (or failure) completes `promise`.
    func start(_ request: HTTP1Request, maxBodySize: Int, timeout: TimeAmount?, promise: EventLoopPromise<HTTP1Response>) {
        guard let context, context.channel.isActive, exchange == nil else {
            promise.fail(HTTP1ClientError.notSent)
            return
        }
        var exchange = Exchange(promise: promise, maxBodySize: maxBodySize)
        if let timeout {
            exchange.timeout = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                fail(.timedOut)
                self.context?.close(promise: nil)
            }
        }
        self.exchange = exchange
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        if let body = request.body {
            headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        }
        let target = absolutePrefix.map { $0 + request.target } ?? request.target
        let head = HTTPRequestHead(version: .http1_1, method: request.method, uri: target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var exchange else {
            // A response nobody asked for: the connection is out of step.
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // Informational responses (100 Continue) precede the real one.
            if head.status.code >= 100 && head.status.code < 200 { return }
            exchange.head = head
            self.exchange = exchange
        case .body(var part):
            let size = (exchange.body?.readableBytes ?? 0) + part.readableBytes
            guard size <= exchange.maxBodySize else {
                fail(.bodyTooLarge(limit: exchange.maxBodySize))
                context.close(promise: nil)
                return
            }
            if exchange.body == nil {
                exchange.body = part
            } else {
                exchange.body!.writeBuffer(&part)
            }
            self.exchange = exchange
        case .end:
            self.exchange = nil
            exchange.timeout?.cancel()
            guard let head = exchange.head else {
                exchange.promise.fail(HTTP1ClientError.connectionClosed(beforeResponse: true))
                context.close(promise: nil)
                return
            }
            let response = HTTP1Response(
                status: head.status, headers: head.headers,
                body: exchange.body ?? ByteBuffer(), keepAlive: head.isKeepAlive)
            if !response.keepAlive { context.close(promise: nil) }
            exchange.promise.succeed(response)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.connectionClosed(beforeResponse: exchange?.head == nil))
        context.fireChannelInactive()
    }

    /// A transport error (a reset, a broken pipe, a TLS stream cut without close_notify) is the
    /// connection closing under the request: reported as ``HTTP1ClientError/connectionClosed(beforeResponse:)``,
    /// so a reused connection the server had dropped is retried whether its close came as a FIN
    /// or as a RST. Other errors (a malformed response, a TLS failure) pass through as they are.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let exchange {
            self.exchange = nil
            exchange.timeout?.cancel()
            exchange.promise.fail(Self.isConnectionLoss(error)
                ? HTTP1ClientError.connectionClosed(beforeResponse: exchange.head == nil) : error)
        }
        context.close(promise: nil)
    }

    private static func isConnectionLoss(_ error: any Error) -> Bool {
        switch error {
        case is IOError, ChannelError.eof, ChannelError.ioOnClosedChannel, ChannelError.outputClosed,
             NIOSSLError.uncleanShutdown:
            true
        default:
            false
        }
    }

    private func fail(_ error: HTTP1ClientError) {
        guard let exchange else { return }
        self.exchange = nil
        exchange.timeout?.cancel()
        exchange.promise.fail(error)
    }
}
