import Foundation
import Harness
import Logging
import NIOConcurrencyHelpers
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// A channel pinned to plain WebSocket through the fault proxy, opened, and the server's side of
/// it: the embedded server with `ReliableChannels`.
struct PinnedChannel {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    let running: RunningServer
    let proxy: FaultProxy
    let driver: FailoverDriver
    let connection: any Connection
    let channel: ReliableChannel
    let channels: ReliableChannels
    /// WebSocket connections the server has served.
    let served: NIOLockedValueBox<Int>

    /// Opens it; `adjust` changes the driver's options, `handlers` sets the server channel's,
    /// `clock` measures the connection's request deadlines.
    static func open(
        adjust: (inout FailoverDriver.Options) -> Void = { _ in },
        handlers: @escaping @Sendable (ReliableChannel) -> Void = { _ in },
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> PinnedChannel {
        let server = SocketIOServer(logger: silent)
        let channels = ReliableChannels(server: server)
        let opened = AsyncStream<ReliableChannel>.makeStream()
        channels.onChannel { channel in
            handlers(channel)
            opened.continuation.yield(channel)
        }
        let served = NIOLockedValueBox(0)
        server.onPlainWebSocket { connection in
            served.withLockedValue { $0 += 1 }
            try await channels.serve(connection)
        }
        let running = try await server.start()
        let proxy = try await FaultProxy.start(upstreamPort: running.port)
        var options = FailoverDriver.Options(
            webSocketURL: URL(string: "ws://127.0.0.1:\(proxy.port)/ws")!,
            socketIOURL: URL(string: "http://127.0.0.1:\(running.port)")!
        )
        options.maxAttempts = 1_000
        options.networkMonitor = nil
        adjust(&options)
        let driver = FailoverDriver(options: options, policy: .pinned(to: .webSocket))
        let connection = try DriverConnectionFactory(clock: clock) { _ in driver }
            .makeConnection(for: ConnectionConfiguration(url: URL(string: "http://127.0.0.1:\(running.port)")!))
        try await withTimeout(20, "connect") { try await connection.connect() }
        let channel = try await opened.stream.firstMatch(within: 20, "the server's channel") { _ in true }
        return PinnedChannel(
            running: running, proxy: proxy, driver: driver, connection: connection,
            channel: try #require(channel), channels: channels, served: served
        )
    }

    func stop() async {
        try? await connection.release()
        await proxy.stop()
        await running.stop()
    }
}
