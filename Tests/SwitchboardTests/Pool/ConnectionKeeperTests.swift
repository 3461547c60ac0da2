import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard
import SwitchboardTesting

/// The keeper at work on a pool of in-memory connections; its interval runs on a ``ManualClock``.
@Suite("Connection keeper")
struct ConnectionKeeperTests {
    struct Harness {
        let clock = ManualClock()
        let server = InMemoryServer()
        let factory: CountingFactory
        let manager: ConnectionManager
        let configuration = ConnectionConfiguration(url: testURL)

        init(rules: [any ConnectionRule] = ConnectionKeeper.defaultRules) {
            factory = CountingFactory(server: server)
            manager = ConnectionManager(
                factory: factory, clock: clock, rules: rules, scanInterval: .seconds(2),
                networkMonitor: nil  // the host's path changes (other tests' links) would scan out of turn
            )
        }

        var keeper: ConnectionKeeper { manager.keeper }

        /// One interval: wait for the keeper to finish what it is doing (a connection still busy
        /// would be skipped by the interval's scan) and for its loop to sleep, then move time past it.
        func tick(_ duration: Duration = .seconds(2)) async {
            await keeper.settled()
            await clock.waitForSleepers(1)
            clock.advance(by: duration)
        }
    }

    @Test func aLeaseGetsItsConnectionConnected() async throws {
        let harness = Harness()
        let lease = try await harness.manager.lease(harness.configuration)
        try await (lease.connection as? DriverConnection)?.waitFor(.connected, "the keeper connects a leased connection")
        #expect(harness.server.acceptedOpenCount == 1)
        await harness.manager.shutdown()
    }

    @Test func twoLeasesShareOneConnection() async throws {
        let harness = Harness()
        let orders = try await harness.manager.lease(harness.configuration)
        let chat = try await harness.manager.lease(harness.configuration)
        #expect(orders.connection === chat.connection)
        try await (chat.connection as? DriverConnection)?.waitFor(.connected)
        #expect(harness.factory.made == 1)
        #expect(harness.server.acceptedOpenCount == 1)
        await harness.manager.shutdown()
    }

    @Test func anOccupiedConnectionThatDroppedIsReconnectedOnTheNextIntervalScan() async throws {
        let harness = Harness()
        let lease = try await harness.manager.lease(harness.configuration)
        let connection = try #require(lease.connection as? DriverConnection)
        try await connection.waitFor(.connected)

        harness.server.connectBehavior = .refuse("still down")
        harness.server.dropConnections()
        try await connection.waitFor(.disconnected)
        let events = harness.keeper.events()
        await harness.tick()
        let failed = try await events.firstMatch(within: 10, "a failed reconnect") {
            if case .acted(connection.id, "connect", .disconnected, .some(_)) = $0 { return true }
            return false
        }
        #expect(failed != nil)
        #expect(connection.state == .disconnected, "a failed attempt waits for the next interval")

        harness.server.connectBehavior = .accept
        await harness.tick()
        try await connection.waitFor(.connected, "reconnected by the keeper")
        #expect(lease.isReleased == false)
        await harness.manager.shutdown()
    }

    @Test func releasingTheLastLeaseDisconnectsReleasesAndRemovesTheConnection() async throws {
        let harness = Harness()
        let first = try await harness.manager.lease(harness.configuration)
        let second = try await harness.manager.lease(harness.configuration)
        let connection = try #require(first.connection as? DriverConnection)
        try await connection.waitFor(.connected)
        let events = harness.keeper.events()

        first.release()
        await harness.keeper.scan()
        #expect(connection.state == .connected, "still occupied by the second lease")

        let states = connection.stateChanges()
        second.release()
        try await events.wait(for: .removed(connection.id), "the connection leaves the pool")
        #expect(connection.state == .released)
        #expect(harness.manager.pool.count == 0)
        let seen = try await withTimeout(10, "the states") { await states.reduce(into: []) { $0.append($1) } }
        #expect(seen == [.connected, .disconnected, .released])

        let again = try await harness.manager.lease(harness.configuration)
        #expect(again.connection !== connection, "a new lease gets a new connection")
        #expect(harness.factory.made == 2)
        await harness.manager.shutdown()
    }

    @Test func anIdleGraceKeepsTheConnectionForAScreenChange() async throws {
        let harness = Harness(rules: [IdleGraceRule(grace: .seconds(10))] + ConnectionKeeper.defaultRules)
        let screenA = try await harness.manager.lease(harness.configuration)
        let connection = try #require(screenA.connection as? DriverConnection)
        try await connection.waitFor(.connected)

        let events = harness.keeper.events()
        screenA.release()
        await harness.keeper.scan()
        #expect(connection.state == .connected, "kept during the grace")

        let screenB = try await harness.manager.lease(harness.configuration)
        #expect(screenB.connection === connection, "the next screen reuses it")
        screenB.release()
        await harness.keeper.scan()
        #expect(connection.state == .connected)

        await harness.tick(.seconds(10))
        try await events.wait(for: .removed(connection.id), "closed after the grace")
        #expect(connection.state == .released)
        #expect(harness.factory.made == 1)
        await harness.manager.shutdown()
    }

    @Test func queuedCommandsOfAReleasedPooledConnectionFail() async throws {
        let harness = Harness()
        harness.server.connectBehavior = .refuse("down")
        let lease = try await harness.manager.lease(harness.configuration)
        let connection = try #require(lease.connection as? DriverConnection)
        try await connection.waitFor(.disconnected, "the first connect fails")
        let send = Task { try await connection.send("lost", 1) }
        try await connection.waitForQueued(1)
        let events = harness.keeper.events()
        lease.release()
        try await events.wait(for: .removed(connection.id))
        #expect(await failure(of: send) as? ConnectionError == .released)
        await harness.manager.shutdown()
    }

    @Test func aLeaseChangeDuringAnActionIsHandledWhenTheActionEnds() async throws {
        let harness = Harness()
        harness.server.connectBehavior = .hold
        let activity = harness.server.activity()
        let lease = try await harness.manager.lease(harness.configuration)
        let connection = try #require(lease.connection as? DriverConnection)
        try await activity.wait(for: .openHeld, "the keeper's connect waits")

        let events = harness.keeper.events()
        lease.release()  // its scan finds the connection busy
        try await events.wait(for: .scanFinished(connections: 1), "the lease-change scan skipped it")
        #expect(connection.state == .created)

        // The connect fails: no follow-up step, so only the owed rescan can release it now
        // (the interval never passes on this clock).
        harness.server.connectBehavior = .refuse("no")
        try await events.wait(for: .removed(connection.id), "rescanned once the connect ended, then released")
        #expect(connection.state == .released)
        await harness.manager.shutdown()
    }

    /// Pings an occupied, connected connection: a custom action that leaves its state as it was.
    struct Ping: ConnectionRule {
        func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
            guard snapshot.isOccupied, snapshot.state == .connected else { return nil }
            return .custom(name: "ping") { connection in try await connection.send("ping", .null) }
        }
    }

    @Test func customActionsRunAndAreReported() async throws {
        let harness = Harness(rules: [Ping()] + ConnectionKeeper.defaultRules)
        // Subscribed first: the scan the lease itself triggers may be the one that pings (the
        // manual scan below then finds the connection claimed and returns before the ping).
        let events = harness.keeper.events()
        let lease = try await harness.manager.lease(harness.configuration)
        let connection = try #require(lease.connection as? DriverConnection)
        try await connection.waitFor(.connected)
        await harness.keeper.scan()
        let pinged = try await events.firstMatch(within: 10, "the ping") {
            if case .acted(connection.id, "ping", .connected, nil) = $0 { return true }
            return false
        }
        #expect(pinged != nil)
        #expect(harness.server.received.map(\.event).contains("ping"))
        await harness.manager.shutdown()
    }

    /// The first rule that applies acts once per scan: a custom action leaves the state as it
    /// was, and was chosen and run again, three times a scan.
    @Test func aCustomActionRunsOncePerScan() async throws {
        let harness = Harness(rules: [Ping()] + ConnectionKeeper.defaultRules)
        let lease = try await harness.manager.lease(harness.configuration)
        let connection = try #require(lease.connection as? DriverConnection)
        try await connection.waitFor(.connected)
        await harness.keeper.settled()  // the lease's own scan
        let pings = { harness.server.received.count { $0.event == "ping" } }
        let before = pings()
        await harness.keeper.scan()
        #expect(pings() - before == 1)
        await harness.manager.shutdown()
    }

    /// `for await event in manager.keeper.events()` ends when the manager shuts down (and a
    /// stream asked for later ends at once); before, it waited forever.
    @Test func theEventStreamsEndWhenTheManagerShutsDown() async throws {
        let harness = Harness()
        let events = harness.keeper.events()
        let consumer = Task { for await _ in events {}; return true }
        await harness.manager.shutdown()
        let ended = try await withTimeout(5, "the keeper's events ending") { await consumer.value }
        #expect(ended)
        let later = try await harness.keeper.events().first(1, within: 5, "a stream of a stopped keeper")
        #expect(later.isEmpty)
    }

    @Test func aStoppedKeeperNoLongerScans() async throws {
        let harness = Harness()
        let lease = try await harness.manager.lease(harness.configuration)
        let connection = try #require(lease.connection as? DriverConnection)
        try await connection.waitFor(.connected)
        harness.keeper.stop()
        lease.release()
        #expect(harness.clock.sleeperCount == 0, "the interval loop ended")
        #expect(connection.state == .connected, "no lease-change scan after stop")
        await harness.manager.shutdown()
        #expect(connection.state == .released, "shutdown releases what is left")
    }
}
