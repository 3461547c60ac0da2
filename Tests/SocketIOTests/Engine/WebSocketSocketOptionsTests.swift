#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import SwitchboardTestSupport
import Testing
import WebSocketClient

/// The client's TCP socket: Nagle off (TCP_NODELAY at the TCP level), and nothing set at the
/// socket level by mistake (`socketOption(.tcp_nodelay)` is SO_DEBUG there: same number).
@Suite struct WebSocketSocketOptionsTests {
    @Test("TCP_NODELAY is on and SO_DEBUG off on the client's socket")
    func noDelayAtTheTCPLevel() async throws {
        let harness = try await EmbeddedHarness.start()
        let opened = AsyncStream.makeStream(of: Void.self)
        let channel = WebSocketClientChannel(configuration: .init(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: harness.port),
            target: "/socket.io/?EIO=4&transport=websocket", maxMessageSize: 1 << 20
        )) { event in
            if case .opened = event { opened.continuation.yield() }
        }
        channel.connect()
        _ = try await opened.stream.first(1, "the WebSocket opening")
        let tcp = try #require(channel.tcpChannel)
        let noDelay = try await tcp.getOption(ChannelOptions.tcpOption(.tcp_nodelay)).get()
        let debug = try await tcp.getOption(ChannelOptions.socketOption(NIOBSDSocket.Option(rawValue: SO_DEBUG))).get()
        #expect(noDelay != 0)
        #expect(debug == 0)
        channel.close()
        await channel.waitUntilClosed()
        await harness.stop()
    }
}
