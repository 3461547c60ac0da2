import Foundation
import Logging
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// A Socket.IO driver used on its own (not under a `DriverConnection`, whose `deinit` closes
/// it) and let go open: its manager goes and the server sees the client leave. Before, the
/// manager and its connected socket held each other, so the session stayed open, answering the
/// server's pings, for good.
@Suite(.timeLimit(.minutes(1)))
struct SocketIODriverLifetimeTests {
    final class Weak: @unchecked Sendable { weak var manager: Manager? }

    @Test func aDriverLetGoWithoutCloseEndsItsSession() async throws {
        let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(configuration: SocketIOServer.Configuration(), logger: silent)
        let left = AsyncStream.makeStream(of: ServerDisconnectReason.self)
        server.namespace("/").onConnection { socket in
            socket.onDisconnect { reason in left.continuation.yield(reason) }
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        let weak = Weak()
        do {
            var configuration = ConnectionConfiguration(url: running.url)
            configuration.transport = .webSocketOnly
            let driver = try SocketIODriver(configuration: configuration)
            try await withTimeout(10, "open") { try await driver.open { _ in } }
            weak.manager = driver.manager
        }
        let reason = try await left.stream.first(1, within: 10, "the server seeing the client leave")
        #expect(reason.first == .clientNamespaceDisconnect)
        #expect(weak.manager == nil, "the manager outlived its driver")
        await running.stop()
    }
}
