import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import SocketIOProtocol

/// Engine.IO over one WebSocket, on swift-nio's own client upgrader.
///
/// swift-nio's upgrader leaves the request headers to us, so the handshake carries exactly the
/// headers the app configured and no `Origin` (python-socketio refuses a foreign `Origin` with
/// its default CORS setting; socket.io's own clients send none). One Engine.IO packet per
/// WebSocket message; client frames are masked as RFC 6455 requires.
final class WebSocketTransport: EngineTransport {
    let name = "websocket"

    private let version: EngineIOVersion
    private struct Connection {
        /// The TCP channel as soon as it connects (to close it even mid-handshake).
        var raw: (any Channel)?
        /// The channel once the WebSocket upgrade completed; sends made before wait in `pending`.
        var channel: (any Channel)?
        var pending: [EnginePacket] = []
        var closed = false
        /// Packets waiting for the event loop, and whether a drain is already scheduled: a burst
        /// of sends from other threads costs one event-loop hop and one flush, not one each.
        var outbox: [EnginePacket] = []
        var drainScheduled = false
    }

    private let connection = NIOLockedValueBox(Connection())

    /// Starts connecting to `uri` on `endpoint`; `handler` hears every packet and, once, the end.
    init(
        endpoint: EngineEndpoint,
        uri: String,
        headers: [(String, String)],
        version: EngineIOVersion,
        maxMessageSize: Int,
        trustRoots: TrustRoots = .system,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        handler: @escaping @Sendable (TransportEvent) -> Void
    ) {
        self.version = version
        let reporter = TransportReporter(handler)
        let tls: NIOSSLContext?
        do {
            tls = endpoint.secure ? try NIOSSLContext(configuration: TLS.configuration(trustRoots)) : nil
        } catch {
            reporter.end(.transportError("TLS setup failed: \(error)"))
            return
        }
        let serverHostname = Self.isIPAddress(endpoint.host) ? nil : endpoint.host
        var requestHeaders = HTTPHeaders()
        requestHeaders.add(name: "Host", value: endpoint.hostHeader)
        for (name, value) in headers { requestHeaders.add(name: name, value: value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: requestHeaders)

        let bootstrap = ClientBootstrap(group: group)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(20))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    }
                    let upgrader = NIOTypedWebSocketClientUpgrader<Void>(
                        maxFrameSize: maxMessageSize,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    NIOWebSocketFrameAggregator(
                                        minNonFinalFragmentSize: 0,
                                        maxAccumulatedFrameCount: 1 << 16,
                                        maxAccumulatedFrameSize: maxMessageSize
                                    )
                                )
                                try channel.pipeline.syncOperations.addHandler(
                                    WebSocketFrameHandler(version: version, reporter: reporter)
                                )
                            }
                        }
                    )
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Void>(
                        upgradeRequestHead: head,
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            reporter.end(.transportError("the server refused the WebSocket upgrade"))
                            return channel.close()
                        }
                    )
                    // Servers often send the Engine.IO `open` frame in the same TCP read as the
                    // 101 response; NIO drops such bytes unless told to forward them.
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: pipeline
                    )
                    upgraded.whenComplete { [self] result in
                        switch result {
                        case .success:
                            self.upgradeCompleted(on: channel)
                        case .failure(let error):
                            reporter.end(.transportError("WebSocket handshake failed: \(error)"))
                            channel.close(promise: nil)
                        }
                    }
                }
            }
        bootstrap.connect(host: endpoint.host, port: endpoint.port).whenComplete { [self] result in
            switch result {
            case .success(let connected):
                connected.closeFuture.whenComplete { _ in reporter.end(.transportClose) }
                let closeNow = self.connection.withLockedValue { connection in
                    connection.raw = connected
                    return connection.closed
                }
                if closeNow { connected.close(promise: nil) }
            case .failure(let error):
                reporter.end(.transportError("cannot connect to \(endpoint.host):\(endpoint.port): \(error)"))
            }
        }
    }

    /// The WebSocket is up: from now on sends go straight to the channel.
    private func upgradeCompleted(on channel: any Channel) {
        let (closeNow, pending) = connection.withLockedValue { connection in
            connection.channel = channel
            defer { connection.pending = [] }
            return (connection.closed, connection.pending)
        }
        if closeNow {
            channel.close(promise: nil)
        } else if !pending.isEmpty {
            // Already on the event loop: written before any drain queued by a later send.
            writeNow(pending, on: channel)
        }
    }

    func send(_ packets: [EnginePacket]) {
        let channel = connection.withLockedValue { connection -> (any Channel)? in
            guard let channel = connection.channel else {
                if !connection.closed { connection.pending.append(contentsOf: packets) }
                return nil
            }
            connection.outbox.append(contentsOf: packets)
            guard !connection.drainScheduled else { return nil }
            connection.drainScheduled = true
            return channel
        }
        guard let channel else { return }
        channel.eventLoop.execute { [self] in
            let batch = connection.withLockedValue { connection in
                connection.drainScheduled = false
                defer { connection.outbox.removeAll(keepingCapacity: true) }
                return connection.outbox
            }
            writeNow(batch, on: channel)
        }
    }

    /// Writes frames and flushes once; runs on the channel's event loop.
    private func writeNow(_ packets: [EnginePacket], on channel: any Channel) {
        guard !packets.isEmpty else { return }
        for packet in packets {
            let frame: WebSocketFrame
            switch packet.webSocketMessage(version: version) {
            case .text(let text):
                frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(),
                                       data: channel.allocator.buffer(string: text))
            case .binary(let data):
                frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(),
                                       data: channel.allocator.buffer(bytes: data))
            }
            channel.write(frame, promise: nil)
        }
        channel.flush()
    }

    func waitUntilClosed() async {
        guard let channel = connection.withLockedValue({ $0.channel }) else { return }
        try? await channel.closeFuture.get()
    }

    func close() {
        let (channel, raw) = connection.withLockedValue { connection in
            connection.closed = true
            connection.pending = []
            return (connection.channel, connection.raw)
        }
        guard let channel else {
            raw?.close(promise: nil)
            return
        }
        channel.eventLoop.execute {
            var data = channel.allocator.buffer(capacity: 2)
            data.write(webSocketErrorCode: .normalClosure)
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
            channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

extension WebSocketTransport {
    /// TLS sends no SNI for an IP address.
    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
    }
}

/// Hands transport events to the engine, and the end exactly once.
final class TransportReporter: Sendable {
    private let handler: @Sendable (TransportEvent) -> Void
    private let ended = NIOLockedValueBox(false)

    init(_ handler: @escaping @Sendable (TransportEvent) -> Void) {
        self.handler = handler
    }

    func packet(_ packet: EnginePacket) {
        guard !ended.withLockedValue({ $0 }) else { return }
        handler(.packet(packet))
    }

    func end(_ reason: EngineCloseReason) {
        let first = ended.withLockedValue { ended in
            defer { ended = true }
            return !ended
        }
        if first { handler(.ended(reason)) }
    }
}

/// Turns WebSocket frames into Engine.IO packets, answers WebSocket pings, reports the end.
final class WebSocketFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let version: EngineIOVersion
    private let reporter: TransportReporter

    init(version: EngineIOVersion, reporter: TransportReporter) {
        self.version = version
        self.reporter = reporter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        do {
            switch frame.opcode {
            case .text:
                let text = String(buffer: frame.unmaskedData)
                reporter.packet(try EnginePacket.decode(text: text, version: version))
            case .binary:
                let bytes = Data(frame.unmaskedData.readableBytesView)
                reporter.packet(try EnginePacket.decode(binaryFrame: bytes, version: version))
            case .ping:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                reporter.end(.transportClose)
                context.close(promise: nil)
            case .pong, .continuation:
                break
            default:
                break
            }
        } catch {
            reporter.end(.parseError(error.description))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        reporter.end(.transportClose)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        reporter.end(.transportError("\(error)"))
        context.close(promise: nil)
    }
}
