#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SwitchboardCore
import SwitchboardTestSupport
import Testing
import WebSocketClient

/// The one WebSocket client over the universal bootstrap: whatever TLS provider the stack is
/// given sits in front of the same pipeline (here a fake one, and NIOSSL against a TLS server),
/// and the network settings reach the socket.
@Suite struct TransportStackTests {
    /// Counts the bytes that pass: a stand-in for TLS, put in front by its provider.
    final class PassThrough: ChannelDuplexHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        typealias OutboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let bytes = NIOLockedValueBox(0)

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            bytes.withLockedValue { $0 += unwrapInboundIn(data).readableBytes }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            bytes.withLockedValue { $0 += unwrapOutboundIn(data).readableBytes }
            context.write(data, promise: promise)
        }
    }

    /// A TLS provider that adds ``PassThrough`` where TLS would go.
    struct FakeTLS: NIOClientTLSProvider {
        typealias Bootstrap = ClientBootstrap
        let handler: PassThrough
        func enableTLS(_ bootstrap: ClientBootstrap) -> ClientBootstrap {
            let handler = self.handler
            return bootstrap.protocolHandlers { [handler] }
        }
    }

    /// Opens a channel with `configuration` and returns it once the WebSocket is up.
    static func open(_ configuration: WebSocketClientChannel.Configuration) async throws -> WebSocketClientChannel {
        let opened = AsyncStream.makeStream(of: Void.self)
        let channel = WebSocketClientChannel(configuration: configuration) { event in
            if case .opened = event { opened.continuation.yield() }
        }
        channel.connect()
        _ = try await opened.stream.first(1, "the WebSocket opening")
        return channel
    }

    @Test("a provider of the test's own sits in front of the pipeline, and the WebSocket works through it")
    func fakeProvider() async throws {
        let harness = try await EmbeddedHarness.start()
        let handler = PassThrough()
        // `secure` so the stack asks for TLS; the fake provider gives a pass-through instead.
        var configuration = WebSocketClientChannel.Configuration(
            address: ServerAddress(secure: true, host: "127.0.0.1", port: harness.port),
            target: "/socket.io/?EIO=4&transport=websocket", maxMessageSize: 1 << 20
        )
        configuration.socketsTLS = { base, _, _ in NIOClientTCPBootstrap(base, tls: FakeTLS(handler: handler)).enableTLS() }
        let channel = try await Self.open(configuration)
        let tcp = try #require(channel.tcpChannel)
        let first = try await tcp.pipeline.handler(type: PassThrough.self).get()
        #expect(first === handler)
        #expect(handler.bytes.withLockedValue { $0 } > 0, "the upgrade and the open packet went through it")
        channel.close()
        await channel.waitUntilClosed()
        await harness.stop()
    }

    @Test("ws:// gets no TLS handler at all; wss:// goes through the sockets bootstrap and its TLS provider (NIOSSL: the TLS suite connects through it to a TLS server)")
    func plainAndNIOSSL() async throws {
        let harness = try await EmbeddedHarness.start()
        let plain = try await Self.open(WebSocketClientChannel.Configuration(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: harness.port),
            target: "/socket.io/?EIO=4&transport=websocket", maxMessageSize: 1 << 20
        ))
        let tcp = try #require(plain.tcpChannel)
        await #expect(throws: (any Error).self) { try await tcp.pipeline.containsHandler(type: NIOSSLClientHandler.self).get() }
        plain.close()
        await plain.waitUntilClosed()
        await harness.stop()

        // NIOSSL through the seam, without a network: the provider the stack uses by default
        // puts its handler in front of a channel.
        let stack = TransportStack(connectTimeout: .seconds(1))
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let bootstrap = try stack.bootstrap(for: ServerAddress(secure: true, host: "localhost", port: 1), trustRoots: .system, on: loop)
        #expect(bootstrap.underlyingBootstrap is ClientBootstrap)
    }

    @Test("TCP keep-alive from NetworkSettings reaches the socket (SO_KEEPALIVE, TCP_KEEPIDLE)")
    func keepAlive() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = WebSocketClientChannel.Configuration(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: harness.port),
            target: "/socket.io/?EIO=4&transport=websocket", maxMessageSize: 1 << 20
        )
        configuration.network.tcpKeepAlive = .seconds(42)
        let channel = try await Self.open(configuration)
        let tcp = try #require(channel.tcpChannel)
        let keepAlive = try await tcp.getOption(ChannelOptions.socketOption(.so_keepalive)).get()
        let idle = try await tcp.getOption(ChannelOptions.tcpOption(NIOBSDSocket.Option(rawValue: TCP_KEEPIDLE))).get()
        #expect(keepAlive != 0)
        #expect(idle == 42)
        channel.close()
        await channel.waitUntilClosed()
        await harness.stop()
    }
}
