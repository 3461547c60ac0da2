import Foundation
import Harness
import Logging
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// A pooled Socket.IO connection that the keeper brings back after an outage recovers the
/// server's session: feature code gets the events sent meanwhile, once each, in order, and
/// `recovered` says so — without ever importing SocketIO.
@Suite struct RecoveryThroughConnectionTests {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    struct Setup {
        let server: SocketIOServer
        let running: RunningServer
        let proxy: FaultProxy
        let manager: ConnectionManager
        let lease: ConnectionLease
        let numbers: AsyncStream<JSONValue>
        let states: AsyncStream<ConnectionState>

        func stop() async {
            lease.release()
            await manager.shutdown()
            await proxy.stop()
            await running.stop()
        }
    }

    /// A server with recovery, a fault proxy in front, a pooled connection through it that has
    /// received one event (a session is recoverable once the client has an offset).
    static func setUp(window: Duration, clock: any Clock<Duration> = ContinuousClock()) async throws -> Setup {
        var configuration = SocketIOServer.Configuration()
        configuration.recovery = ConnectionStateRecovery(maxDisconnectionDuration: window)
        configuration.clock = clock
        let server = SocketIOServer(configuration: configuration, logger: silent)
        server.namespace("/").onConnection { _ in }
        let running = try await server.start()
        let proxy = try await FaultProxy.start(upstreamPort: running.port)
        let manager = ConnectionManager(factory: .socketIO, scanInterval: .milliseconds(50))
        var connection = ConnectionConfiguration(url: URL(string: proxy.url)!)
        connection.transport = .webSocketOnly
        connection.connectTimeout = .seconds(2)
        let lease = try await manager.lease(connection)
        let numbers = lease.connection.events(named: "n")
        let states = lease.connection.stateChanges()
        _ = try await states.firstMatch(within: 20, "connected") { $0 == .connected }
        #expect(lease.connection.recovered == false, "a first connection is a new session")
        server.namespace("/").emit("n", .number(-1))
        _ = try await numbers.first(1, within: 20, "the first event")
        return Setup(server: server, running: running, proxy: proxy, manager: manager, lease: lease, numbers: numbers, states: states)
    }

    @Test func anOutageInsideTheWindowIsRecoveredThroughTheConnection() async throws {
        let setup = try await Self.setUp(window: .seconds(120))
        setup.proxy.refuseNewConnections(true)
        setup.proxy.cutAll()
        _ = try await setup.states.firstMatch(within: 20, "the connection noticing the outage") { $0 != .connected }
        for number in 0..<200 { setup.server.namespace("/").emit("n", .number(Double(number))) }
        setup.proxy.refuseNewConnections(false)

        _ = try await setup.states.firstMatch(within: 30, "the keeper reconnecting") { $0 == .connected }
        #expect(setup.lease.connection.recovered == true, "the server resumed the session")
        let missed = try await setup.numbers.first(200, within: 20, "the events sent during the outage")
        #expect(missed == (0..<200).map { .number(Double($0)) }, "each once, in order, without the offset")
        // Exactly once: the next event after the replay is a fresh one.
        setup.server.namespace("/").emit("n", "marker")
        #expect(try await setup.numbers.first(1, within: 20, "the marker") == ["marker"])
        await setup.stop()
    }

    @Test func anOutagePastTheWindowIsReportedAsNotRecovered() async throws {
        let clock = ManualClock()
        let window = Duration.seconds(7)
        let setup = try await Self.setUp(window: window, clock: clock)
        setup.proxy.refuseNewConnections(true)
        setup.proxy.cutAll()
        _ = try await setup.states.firstMatch(within: 20, "the connection noticing the outage") { $0 != .connected }
        setup.server.namespace("/").emit("n", "lost")
        _ = try await withTimeout(20, "the server's expiry timer") { await clock.waitForSleep(1) { $0 == window } }
        clock.advance(by: window + .seconds(1))
        setup.proxy.refuseNewConnections(false)

        _ = try await setup.states.firstMatch(within: 30, "the keeper reconnecting") { $0 == .connected }
        #expect(setup.lease.connection.recovered == false, "too late: a new session, the app must resynchronise")
        setup.server.namespace("/").emit("n", "after")
        #expect(try await setup.numbers.first(1, within: 20, "the next event") == ["after"], "the lost event is not replayed")
        await setup.stop()
    }
}
