import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// `connect()` of a recovered session returns once the events the server replayed ran through
/// the listeners (socket.io's client emits them before `connect`), however far behind the
/// handler executor is: a caller that reads its state after `connect()` sees them applied.
@Suite(.timeLimit(.minutes(1)))
struct RecoveredConnectTests {
    @Test func connectReturnsOnceTheReplayedEventsRanThroughTheListeners() async throws {
        var serverConfiguration = SocketIOServer.Configuration()
        serverConfiguration.recovery = .enabled()
        let server = SocketIOServer(configuration: serverConfiguration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        server.namespace("/").onConnection { _ in }
        let left = AsyncStream<Void>.makeStream()
        server.onConnectionEvent { event in
            if case .socketDisconnected = event { left.continuation.yield() }
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        let manager = try Manager(url: running.url, configuration: configuration)
        let socket = manager.socket()
        let applied = NIOLockedValueBox<[JSONValue]>([])
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        socket.on("n") { event in
            applied.withLockedValue { $0.append(event.items.first ?? .null) }
            arrived.yield()
        }
        try await withTimeout(10, "connect") { try await socket.connect() }
        server.namespace("/").emit("n", -1)
        _ = try await arrivals.first(1, within: 10, "the first event (an offset to resume from)")

        manager.suspend()
        _ = try await left.stream.first(1, within: 10, "the server seeing the session leave")
        for number in 0..<100 { server.namespace("/").emit("n", .number(Double(number))) }

        // The executor is held until the socket connected again: the replayed events, handed
        // over with the CONNECT, wait behind this.
        let release = await holdExecutor { manager.runOnHandlerExecutor($0) }
        defer { release() }
        let statuses = socket.statusChanges
        let reconnect = Task {
            manager.resume()
            try await socket.connect()
            return applied.withLockedValue { $0 }
        }
        _ = try await statuses.firstMatch(within: 10, "connected again") { status in
            if case .connected = status { true } else { false }
        }
        // Without the wait in `connect()`, the reconnect task reads `applied` as soon as the
        // CONNECT is settled, while the executor is still held: it sees `[-1]` (as every run did
        // with the wait removed; a very late reader could see more).
        release()
        let atReturn = try await withTimeout(10, "connect after the resume") { try await reconnect.value }
        #expect(socket.recovered, "the server kept the session")
        #expect(atReturn == [-1] + (0..<100).map { .number(Double($0)) }, "every replayed event, once, in order, before connect() returned")
        await manager.close()
        await running.stop()
    }
}
