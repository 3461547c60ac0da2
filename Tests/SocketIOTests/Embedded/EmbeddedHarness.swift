import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardDemo
import SwitchboardTestSupport

/// The embedded demo server for client tests, plus a record of every `work` event it received
/// (acknowledged with the payload's `id`) and `seq` event (in arrival order).
final class EmbeddedHarness: Sendable {
    let server: SocketIOServer
    let running: RunningServer
    private let seen: NIOLockedValueBox<(work: [Int], seq: [Int])>
    private let seqCount: (stream: AsyncStream<Int>, continuation: AsyncStream<Int>.Continuation)

    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func start(
        port: Int = 0,
        configure: (inout SocketIOServer.Configuration) -> Void = { _ in }
    ) async throws -> EmbeddedHarness {
        var configuration = DemoApplication.configuration
        configure(&configuration)
        let server = SocketIOServer(configuration: configuration, logger: quiet)
        DemoApplication.install(on: server, logger: quiet).cancel()
        // The handlers before the listener: a client reconnecting to a restarted server can
        // connect the moment it listens, and its buffered emits must find them.
        let seen = NIOLockedValueBox<(work: [Int], seq: [Int])>(([], []))
        let seqCount = AsyncStream<Int>.makeStream()
        server.namespace("/").onConnection { socket in
            socket.on("work") { event in
                guard let id = event.items.first?["id"]?.intValue else { return }
                seen.withLockedValue { $0.work.append(id) }
                event.ack?.respond([.number(Double(id))])
            }
            socket.on("seq") { event in
                guard let value = event.items.first?.intValue else { return }
                let count = seen.withLockedValue { seen in
                    seen.seq.append(value)
                    return seen.seq.count
                }
                seqCount.continuation.yield(count)
            }
        }
        let running = try await server.start(host: "127.0.0.1", port: port)
        return EmbeddedHarness(server: server, running: running, seen: seen, seqCount: seqCount)
    }

    private init(
        server: SocketIOServer, running: RunningServer,
        seen: NIOLockedValueBox<(work: [Int], seq: [Int])>,
        seqCount: (stream: AsyncStream<Int>, continuation: AsyncStream<Int>.Continuation)
    ) {
        self.server = server
        self.running = running
        self.seen = seen
        self.seqCount = seqCount
    }

    var port: Int { running.port }
    var url: URL { running.url }
    /// Every `work` id received, duplicates included.
    var work: [Int] { seen.withLockedValue { $0.work } }
    /// Every `seq` value received, in order.
    var seq: [Int] { seen.withLockedValue { $0.seq } }

    /// Waits until `count` `seq` events arrived.
    func waitForSeq(_ count: Int, within seconds: Double = 30) async throws {
        if seq.count >= count { return }
        let counts = seqCount.stream
        _ = try await withTimeout(seconds, "\(count) seq events") {
            for await seen in counts where seen >= count { return true }
            return false
        }
    }

    func stop() async {
        seqCount.continuation.finish()
        await running.stop()
    }
}

extension Manager.Configuration {
    /// A client for tests: WebSocket only, quick reconnection, optional trace log
    /// (SWITCHBOARD_TEST_LOG=1).
    static func quickReconnect(transport: EngineTransportKind = .websocket) -> Manager.Configuration {
        var configuration = Manager.Configuration()
        configuration.transports = [transport]
        configuration.connectTimeout = .seconds(10)
        configuration.reconnectionDelay = .milliseconds(20)
        configuration.reconnectionDelayMax = .milliseconds(100)
        // The machine's real path changes (LinkChangeTests runs in the same process) would start
        // waiting attempts early; tests of the monitor inject their own.
        configuration.networkMonitor = nil
        if ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_LOG"] == "1" {
            var logger = Logger(label: "test.client") { StreamLogHandler.standardError(label: $0) }
            logger.logLevel = .trace
            configuration.logger = logger
        }
        return configuration
    }
}
