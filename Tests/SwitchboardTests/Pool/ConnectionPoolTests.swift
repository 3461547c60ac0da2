import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard

@Suite("Connection pool and leases")
struct ConnectionPoolTests {
    @Test func askingTwiceReturnsTheSameInstance() async throws {
        let factory = CountingFactory()
        let pool = ConnectionPool(factory: factory)
        let configuration = ConnectionConfiguration(url: testURL)
        let first = try await pool.connection(for: configuration)
        let second = try await pool.connection(for: configuration)
        #expect(first === second)
        #expect(factory.made == 1)
        #expect(pool.existingConnection(for: configuration) === first)
    }

    @Test func everyPartOfTheKeyMakesADifferentConnection() async throws {
        let factory = CountingFactory()
        let pool = ConnectionPool(factory: factory)
        let base = ConnectionConfiguration(url: testURL)
        var chat = base
        chat.namespace = "/chat"
        var otherURL = base
        otherURL.url = URL(string: "memory://other")!
        var authed = base
        authed.auth = .static(["token": "a"])
        var webSocket = base
        webSocket.transport = .webSocketOnly
        var ids: Set<ConnectionID> = []
        for configuration in [base, chat, otherURL, authed, webSocket, base, chat] {
            ids.insert(try await pool.connection(for: configuration).id)
        }
        #expect(ids.count == 5)
        #expect(factory.made == 5)
        #expect(pool.count == 5)
    }

    @Test func authProvidersAreComparedByTheirID() {
        var first = ConnectionConfiguration(url: testURL)
        first.auth = .provider(id: "session") { ["token": "1"] }
        var second = ConnectionConfiguration(url: testURL)
        second.auth = .provider(id: "session") { ["token": "2"] }
        var third = ConnectionConfiguration(url: testURL)
        third.auth = .provider(id: "other") { nil }
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != third)
    }

    @Test func aThousandConcurrentLeasesForTenKeysMakeExactlyTenConnections() async throws {
        let factory = CountingFactory()
        let manager = ConnectionManager(factory: factory, clock: ManualClock(), networkMonitor: nil)
        let configurations = (0..<10).map { ConnectionConfiguration(url: testURL, namespace: "/n\($0)") }
        let leases = try await withTimeout(60, "1,000 leases") {
            try await withThrowingTaskGroup(of: ConnectionLease.self) { group in
                for index in 0..<1_000 {
                    group.addTask { try await manager.lease(configurations[index % 10]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(leases.count == 1_000)
        #expect(factory.made == 10)
        #expect(Set(leases.map(\.connection.id)).count == 10)
        for configuration in configurations {
            let connection = try #require(manager.pool.existingConnection(for: configuration))
            #expect(manager.pool.leaseCount(of: connection.id) == 100)
            #expect(leases.filter { $0.configuration == configuration }.allSatisfy { $0.connection === connection })
        }
        // Once the last lease of a key is gone the keeper's default rules may close it at any
        // moment, so the counts are checked through that: every connection ends released (the
        // rules never touch an occupied one), and the pool is empty.
        let connections = try configurations.map { configuration in
            try #require(manager.pool.existingConnection(for: configuration) as? DriverConnection)
        }
        for lease in leases { lease.release() }
        for connection in connections {
            try await connection.waitFor(.released, "the keeper releases an unleased connection")
            #expect(manager.pool.leaseCount(of: connection.id) == 0)
        }
        #expect(manager.pool.count == 0)
        await manager.shutdown()
    }

    @Test func aFailingFactoryFailsTheCallerAndTheKeyCanBeTriedAgain() async throws {
        let factory = CountingFactory()
        let pool = ConnectionPool(factory: factory)
        let configuration = ConnectionConfiguration(url: testURL)
        factory.failNext(1)
        await #expect(throws: ConnectionError.invalidConfiguration("told to fail")) {
            _ = try await pool.connection(for: configuration)
        }
        #expect(pool.count == 0)
        _ = try await pool.connection(for: configuration)
        #expect(pool.count == 1)
    }

    @Test func releasingALeaseTwiceCountsOnceAndDroppingOneReleasesIt() async throws {
        let manager = ConnectionManager(factory: CountingFactory(), clock: ManualClock(), networkMonitor: nil)
        let configuration = ConnectionConfiguration(url: testURL)
        let kept = try await manager.lease(configuration)
        let id = kept.connection.id
        let released = try await manager.lease(configuration)
        #expect(manager.pool.leaseCount(of: id) == 2)
        released.release()
        released.release()
        #expect(released.isReleased)
        #expect(manager.pool.leaseCount(of: id) == 1, "a second release does nothing")
        do {
            let dropped = try await manager.lease(configuration)
            #expect(manager.pool.leaseCount(of: dropped.connection.id) == 2)
        }
        #expect(manager.pool.leaseCount(of: id) == 1, "a dropped lease releases itself")
        #expect(!kept.isReleased)
        await manager.shutdown()
    }

    @Test func aConnectionReleasedBehindThePoolsBackIsReplaced() async throws {
        let factory = CountingFactory()
        let pool = ConnectionPool(factory: factory)
        let configuration = ConnectionConfiguration(url: testURL)
        let first = try await pool.connection(for: configuration)
        try await first.disconnect()
        try await first.release()
        let second = try await pool.connection(for: configuration)
        #expect(first !== second)
        #expect(second.state == .created)
        #expect(factory.made == 2)
    }
}
