import Foundation
import Logging
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// A failover driver used on its own (not under a `DriverConnection`, whose `deinit` closes it)
/// and let go open: it goes, and its transport closes. Before, its ticker held it across every
/// sleep, so it ticked, and kept its WebSocket open, for good.
@Suite(.timeLimit(.minutes(1)))
struct FailoverDriverLifetimeTests {
    final class Weak: @unchecked Sendable { weak var driver: FailoverDriver? }

    @Test func aDriverLetGoWithoutCloseIsFreedAndClosesItsTransport() async throws {
        let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(logger: silent)
        let channels = ReliableChannels(server: server)
        let ended = AsyncStream.makeStream(of: Void.self)
        server.onPlainWebSocket { connection in
            defer { ended.continuation.yield() }
            try await channels.serve(connection)
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        let weak = Weak()
        do {
            var options = FailoverDriver.Options(
                webSocketURL: URL(string: "ws://127.0.0.1:\(running.port)/ws")!,
                socketIOURL: URL(string: "http://127.0.0.1:\(running.port)")!
            )
            options.networkMonitor = nil
            let driver = FailoverDriver(options: options, policy: .pinned(to: .webSocket))
            try await withTimeout(20, "open") { try await driver.open { _ in } }
            weak.driver = driver
        }
        // Its deinit closes the transport (a timer task ending may hold it a moment longer).
        _ = try await ended.stream.first(1, within: 20, "the server seeing the channel's WebSocket close")
        #expect(weak.driver == nil, "let go, the driver is freed")
        await running.stop()
    }
}
