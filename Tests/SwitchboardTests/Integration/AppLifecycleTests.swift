import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// The app's lifecycle through the pool: suspended past its grace, leased Socket.IO connections
/// close as if lost and stay down; resumed, they come back at once, recover what the server sent
/// meanwhile and run what was queued.
@Suite struct AppLifecycleTests {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    @Test func suspendedLeasesCloseKeepingTheirSessionsAndResumeRecoversThem() async throws {
        var configuration = SocketIOServer.Configuration()
        configuration.recovery = .enabled()
        let server = SocketIOServer(configuration: configuration, logger: Self.silent)
        let notes = AsyncStream<JSONValue>.makeStream()
        server.namespace("/").onConnection { socket in
            socket.on("note") { event in notes.continuation.yield(event.items.first ?? .null) }
        }
        let serverDisconnects = AsyncStream<Void>.makeStream()
        server.onConnectionEvent { event in
            if case .socketDisconnected = event { serverDisconnects.continuation.yield() }
        }
        let running = try await server.start()
        let manager = ConnectionManager(factory: .socketIO, scanInterval: .seconds(60), networkMonitor: nil)
        var connection = ConnectionConfiguration(url: URL(string: "http://127.0.0.1:\(running.port)")!)
        connection.transport = .webSocketOnly
        let lease = try await manager.lease(connection)
        let numbers = lease.connection.events(named: "n")
        let states = lease.connection.stateChanges()
        _ = try await states.firstMatch(within: 20, "connected") { $0 == .connected }
        server.namespace("/").emit("n", .number(-1))
        _ = try await numbers.first(1, within: 20, "the first event (an offset to resume from)")

        // Within the grace: nothing changes.
        manager.suspend(after: .seconds(3600))
        await manager.keeper.scan()
        #expect(manager.appLifecycle == .suspending)
        #expect(lease.connection.state == .connected)
        manager.resume()

        // Past it: suspended, and kept down by every scan.
        manager.suspend(after: .zero)
        _ = try await states.firstMatch(within: 20, "the keeper suspending the connection") { $0 == .disconnected }
        _ = try await serverDisconnects.stream.first(1, within: 20, "the server seeing it leave (as lost)")
        await manager.keeper.scan()
        #expect(manager.appLifecycle == .suspended)
        #expect(lease.connection.state == .disconnected, "not reconnected while suspended")
        for number in 0..<100 { server.namespace("/").emit("n", .number(Double(number))) }
        let queued = Task { try await lease.connection.send("note", "sent while suspended") }

        manager.resume()
        _ = try await states.firstMatch(within: 20, "reconnected on resume") { $0 == .connected }
        #expect(lease.connection.recovered == true, "the server kept the session through the suspension")
        let missed = try await numbers.first(100, within: 20, "what the server sent meanwhile")
        #expect(missed == (0..<100).map { .number(Double($0)) }, "each once, in order")
        try await queued.value
        #expect(try await notes.stream.first(1, within: 20, "the queued send") == ["sent while suspended"])

        lease.release()
        await manager.shutdown()
        await running.stop()
    }
}
