import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard
import SwitchboardTesting

/// ``DriverConnection``'s states with a real (in-memory) transport under it.
@Suite("Connection lifecycle")
struct ConnectionLifecycleTests {
    @Test func everyStateChangeIsObservableInOrder() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        let states = connection.stateChanges()
        try await withTimeout(10, "connect") { try await connection.connect() }
        server.dropConnections()
        try await connection.waitFor(.disconnected)
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        try await connection.disconnect()
        try await connection.release()
        let seen = try await withTimeout(10, "the states") { await states.reduce(into: []) { $0.append($1) } }
        #expect(seen == [.created, .connected, .disconnected, .reconnecting, .connected, .disconnected, .released])
    }

    @Test func refusedOperationsThrowTypedErrorsAndLeaveTheStateUnchanged() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        await #expect(throws: ConnectionError.illegalTransition(from: .created, to: .released)) {
            try await connection.release()
        }
        #expect(connection.state == .created)
        try await withTimeout(10, "connect") { try await connection.connect() }
        await #expect(throws: ConnectionError.notAllowed(operation: .connect, state: .connected)) {
            try await connection.connect()
        }
        await #expect(throws: ConnectionError.illegalTransition(from: .connected, to: .released)) {
            try await connection.release()
        }
        #expect(connection.state == .connected)
        #expect(server.acceptedOpenCount == 1, "a refused connect opens nothing")
    }

    @Test func connectIsRefusedWhileReconnecting() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        try await withTimeout(10, "connect") { try await connection.connect() }
        server.dropConnections()
        try await connection.waitFor(.disconnected)
        server.connectBehavior = .hold
        let activity = server.activity()
        let reconnect = Task { try await connection.connect() }
        try await activity.wait(for: .openHeld, "the reconnect waits")
        #expect(connection.state == .reconnecting)
        await #expect(throws: ConnectionError.notAllowed(operation: .connect, state: .reconnecting)) {
            try await connection.connect()
        }
        server.connectBehavior = .accept
        try await withTimeout(10, "reconnect") { try await reconnect.value }
        #expect(connection.state == .connected)
    }

    @Test func aFailedConnectLeavesTheConnectionDisconnectedAndItCanTryAgain() async throws {
        let server = InMemoryServer()
        server.connectBehavior = .refuse("maintenance")
        let connection = makeConnection(server)
        await #expect(throws: ConnectionError.connectFailed("maintenance")) {
            try await connection.connect()
        }
        #expect(connection.state == .disconnected)
        server.connectBehavior = .accept
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        #expect(connection.state == .connected)
    }

    @Test func concurrentFirstConnectsShareOneAttempt() async throws {
        let server = InMemoryServer()
        server.connectBehavior = .hold
        let connection = makeConnection(server)
        let activity = server.activity()
        let first = Task { try await connection.connect() }
        try await activity.wait(for: .openHeld, "the first open waits")
        let second = Task { try await connection.connect() }
        // The second caller joins: still one held open, then one accepted open.
        server.connectBehavior = .accept
        try await withTimeout(10, "both connects") {
            try await first.value
            try await second.value
        }
        #expect(server.acceptedOpenCount == 1)
    }

    @Test func disconnectingWhileTheFirstOpenIsInFlightAbandonsIt() async throws {
        let server = InMemoryServer()
        server.connectBehavior = .hold
        let connection = makeConnection(server)
        let activity = server.activity()
        let connecting = Task { try await connection.connect() }
        try await activity.wait(for: .openHeld, "the open waits")
        try await withTimeout(10, "disconnect") { try await connection.disconnect() }
        #expect(await failure(of: connecting) as? ConnectionError == .connectFailed("disconnected before the connection opened"))
        #expect(connection.state == .disconnected)
        #expect(server.openConnectionCount == 0, "the abandoned open left nothing open")
        server.connectBehavior = .accept
        try await withTimeout(10, "connect again") { try await connection.connect() }
        #expect(connection.state == .connected)
        #expect(server.openConnectionCount == 1)
    }

    @Test func aReleasedConnectionRefusesEverything() async throws {
        let connection = makeConnection(InMemoryServer())
        try await connection.disconnect()
        try await connection.release()
        await #expect(throws: ConnectionError.released) { try await connection.connect() }
        await #expect(throws: ConnectionError.released) { try await connection.disconnect() }
        await #expect(throws: ConnectionError.released) { try await connection.release() }
        await #expect(throws: ConnectionError.released) { try await connection.send("a", 1) }
        await #expect(throws: ConnectionError.released) { try await connection.request("a", 1, timeout: .seconds(1)) }
        let events = connection.events(named: "news")
        #expect(await events.reduce(0) { count, _ in count + 1 } == 0, "a subscription on a released connection ends at once")
        #expect(await connection.stateChanges().reduce(into: []) { $0.append($1) } == [.released])
    }

    @Test func eventsOfAnAbandonedTransportAreIgnored() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        let news = connection.events(named: "news")
        try await withTimeout(10, "connect") { try await connection.connect() }
        server.push("news", 1)
        try await connection.disconnect()
        server.push("news", 2)  // nobody is open: not delivered
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        server.push("news", 3)
        #expect(try await news.first(2) == [1, 3])
    }

    @Test func theDefaultRequestTimeoutComesFromTheConfiguration() async throws {
        let clock = ManualClock()
        let server = InMemoryServer()
        let connection = makeConnection(server, clock: clock) { $0.requestTimeout = .seconds(3) }
        let request = Task { try await connection.request("never") }
        try await connection.waitForQueued(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))
        #expect(await failure(of: request) as? ConnectionError == .timedOut(event: "never", after: .seconds(3)))
    }
}
