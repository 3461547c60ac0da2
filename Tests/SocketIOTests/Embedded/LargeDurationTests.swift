import Foundation
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Durations too long to write in milliseconds (an app's "never time out") are taken as the
/// longest there is, on both sides: the client's connect timeout and backoff, the server's
/// heartbeat in the handshake. Converting them used to trap, as did a message limit past what
/// NIO's frame decoder takes.
@Suite struct LargeDurationTests {
    @Test func aClientWithDurationsTooLongForMillisecondsConnects() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = Manager.Configuration()
        configuration.connectTimeout = .seconds(Int64.max / 2)
        configuration.reconnectionDelay = .seconds(Int64.max / 2)
        configuration.reconnectionDelayMax = .seconds(Int64.max / 2)
        // Past what NIO's WebSocket frame decoder takes (UInt32.max): it trapped on the upgrade.
        configuration.maxInboundMessageSize = Int.max
        let manager = try Manager(url: harness.url, configuration: configuration)
        let socket = manager.socket(namespace: "/")
        try await withTimeout(20, "the connection") { try await socket.connect() }
        #expect(try await socket.emitWithAck("ack", "still here") == ["still here"])
        await manager.close()
        await harness.stop()
    }

    /// A heartbeat too long for any client's timers is announced as the longest a client
    /// accepts (2^31 ms), and the client connects (converting it used to trap).
    @Test func aServerWithAHeartbeatTooLongForMillisecondsHandshakes() async throws {
        let harness = try await EmbeddedHarness.start {
            $0.pingInterval = .seconds(Int64.max / 2)
            $0.pingTimeout = .seconds(Int64.max / 2)
        }
        let manager = try Manager(url: harness.url)
        let socket = manager.socket(namespace: "/")
        try await withTimeout(20, "the connection") { try await socket.connect() }
        #expect(try await socket.emitWithAck("ack", 1) == [1])
        await manager.close()
        await harness.stop()
    }
}
