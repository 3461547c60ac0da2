import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// The platform layer end to end, written once for any ``IntegrationBackend``.
enum PlatformScenarios {
    /// Two screens lease the same URL and share one connection; the server goes away and comes
    /// back on the same port; the keeper reconnects because leases are held, and the sends and
    /// requests made during the outage reach the server in order; the leases go, and the keeper
    /// disconnects and releases the connection, which leaves the pool.
    static func sharedConnectionThroughAnOutage(_ backend: IntegrationBackend) async throws {
        // Below the ephemeral range, so no other test's server takes it while this one is down.
        let first = try await TestPorts.start { try await backend.start($0) }
        let clock = ManualClock()  // the keeper's interval: the test says when it passes
        let manager = ConnectionManager(factory: backend.factory(), clock: clock, scanInterval: .seconds(2), networkMonitor: nil)
        var configuration = ConnectionConfiguration(url: first.url)
        // Over polling, an attempt while the server is down fails only at this timeout (the HTTP
        // client retries refused connections until then).
        configuration.connectTimeout = .seconds(5)
        backend.configure(&configuration)

        // Two screens, one connection.
        let firstConnect = manager.keeper.events()
        let orders = try await manager.lease(configuration)
        let chat = try await manager.lease(configuration)
        #expect(orders.connection === chat.connection, "both screens hold the same connection")
        let connection = try #require(orders.connection as? DriverConnection)
        let echoes = connection.events(named: "echo")  // subscribed before the connection is up
        try await keeperConnects(connection, reporting: firstConnect, clock: clock)
        try await connection.waitFor(.connected, "the keeper connects the leased connection")
        try await chat.connection.send("echo", "before")
        #expect(try await echoes.first(1, within: 20, "the first echo") == ["before"])
        #expect(first.connections() == 1, "the server saw one connection for two screens")

        // The outage.
        await first.stop()
        try await connection.waitFor(.disconnected, "the connection notices the server went away")
        let sendOne = Task { try await orders.connection.send("echo", "queued-1") }
        try await connection.waitForQueued(1)
        let requestTwo = Task { try await chat.connection.request("echo", "queued-2", timeout: .seconds(60)) }
        try await connection.waitForQueued(2)
        let sendThree = Task { try await orders.connection.send("echo", "queued-3") }
        try await connection.waitForQueued(3)

        // An interval passes while the server is down: the keeper tries, fails, the queue waits.
        let events = manager.keeper.events()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        let failed = try await events.firstMatch(within: 30, "a reconnect attempt during the outage") {
            if case .acted(connection.id, "connect", .disconnected, .some(_)) = $0 { return true }
            return false
        }
        #expect(failed != nil)
        #expect(connection.queuedCommandCount == 3, "nothing queued was lost to the failed attempt")

        // The server comes back on the same port; at the next interval the keeper reconnects.
        let second = try await TestPorts.restart(on: first.port) { try await backend.start($0) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        try await keeperConnects(connection, reporting: events, clock: clock)
        try await connection.waitFor(.connected, "the keeper reconnects: leases are held")
        try await withTimeout(30, "the queued commands") {
            try await sendOne.value
            #expect(try await requestTwo.value.value == "queued-2")
            try await sendThree.value
        }
        #expect(try await echoes.first(3, within: 30, "the queued echoes") == ["queued-1", "queued-2", "queued-3"],
                "delivered in the order they were made")
        #expect(second.connections() == 1)

        // The screens go away: the keeper disconnects, releases, and the pool forgets it.
        orders.release()
        chat.release()
        try await events.wait(for: .removed(connection.id), within: 30, "the connection leaves the pool")
        #expect(connection.state == .released)
        #expect(manager.pool.count == 0)
        await manager.shutdown()
        await second.stop()
    }

    /// Waits for the keeper's connect of `connection` to succeed. On a starved machine an
    /// attempt can run out of its connect timeout; the keeper then retries at its next interval,
    /// which runs on the test clock, so each failed attempt moves the clock one interval on.
    private static func keeperConnects(
        _ connection: DriverConnection,
        reporting events: AsyncStream<KeeperEvent>,
        clock: ManualClock
    ) async throws {
        try await withTimeout(60, "the keeper connects the leased connection") {
            for await event in events {
                guard case .acted(connection.id, "connect", _, let failure) = event else { continue }
                guard failure != nil else { return }
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(2))
            }
            throw SequenceEnded(what: "the keeper's connect")
        }
    }

    /// A connection from the builder talks to the server: events, requests, a clean close.
    static func builderConnectionRoundTrip(_ backend: IntegrationBackend) async throws {
        let server = try await backend.start(0)
        var configuration = ConnectionConfiguration(url: server.url)
        backend.configure(&configuration)
        let transport = configuration.transport
        let connection = try await withTimeout(30, "connect") {
            try await ConnectionBuilder()
                .url(server.url)
                .transport(transport)
                .connectTimeout(.seconds(10))
                .connect(using: backend.factory())
        }
        let echoes = connection.events(named: "echo")
        try await connection.send("echo", ["n": 1, "list": [true, .null]])
        #expect(try await echoes.first(1, within: 20) == [["n": 1, "list": [true, .null]]])
        let reply = try await connection.request("echo", "ping", timeout: .seconds(20))
        #expect(reply.values == ["ping"])
        try await connection.disconnect()
        try await connection.release()
        await server.stop()
    }
}
