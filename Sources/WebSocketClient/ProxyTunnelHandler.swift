import NIOCore

/// Opens a `CONNECT` tunnel through an HTTP proxy: writes the request when the connection is
/// up, reads the proxy's answer head and completes `established` (a 2xx) or fails it (anything
/// else, or a head larger than 16 KiB). Bytes after the head are not expected (the client
/// speaks first through a tunnel: TLS's hello) and fail it too. Removed by its owner afterwards.
final class ProxyTunnelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let authority: String
    private let established: EventLoopPromise<Void>
    private var received = ByteBuffer()
    private var done = false

    /// A tunnel to `authority` (`host:port`).
    init(authority: String, established: EventLoopPromise<Void>) {
        self.authority = authority
        self.established = established
    }

    func channelActive(context: ChannelHandlerContext) {
        let request = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: request)), promise: nil)
        context.fireChannelActive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Added to a channel that is already connected: speak at once. One no longer active
        // closed before (its inactivity was announced before this handler was there to hear it).
        if context.channel.isActive {
            channelActive(context: context)
        } else {
            finish(.failure(HTTP1ClientError.connectionClosed(beforeResponse: true)), context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var part = unwrapInboundIn(data)
        received.writeBuffer(&part)
        let bytes = received.readableBytesView
        guard let end = Self.endOfHead(bytes) else {
            if bytes.count > 16 * 1024 { finish(.failure(HTTP1ClientError.proxyRefused(status: 0)), context) }
            return
        }
        let head = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
        let status = Self.status(ofHead: head)
        if let status, (200..<300).contains(status), end + 4 == bytes.endIndex {
            finish(.success(()), context)
        } else {
            finish(.failure(HTTP1ClientError.proxyRefused(status: status ?? 0)), context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(HTTP1ClientError.connectionClosed(beforeResponse: true)), context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(.failure(error), context)
    }

    private func finish(_ result: Result<Void, any Error>, _ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        switch result {
        case .success:
            established.succeed()
        case .failure(let error):
            established.fail(error)
            context.close(promise: nil)
        }
    }

    /// Where the head's blank line starts (the index of its `\r\n\r\n`), if it has come.
    static func endOfHead(_ bytes: ByteBufferView) -> Int? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4 else { return nil }
        var index = bytes.startIndex
        while index + 4 <= bytes.endIndex {
            if bytes[index] == 13 && bytes[index..<index + 4].elementsEqual(terminator) { return index }
            index += 1
        }
        return nil
    }

    /// The status code of a response head (`HTTP/1.1 200 Connection established`).
    static func status(ofHead head: String) -> Int? {
        let statusLine = head.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return nil }
        return Int(parts[1])
    }
}
