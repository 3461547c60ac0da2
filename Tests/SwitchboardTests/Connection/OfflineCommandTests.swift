import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard
import SwitchboardTesting

/// The offline command queue of ``DriverConnection``, over the in-memory driver: no sockets,
/// time on a ``ManualClock``.
@Suite("Offline commands")
struct OfflineCommandTests {
    @Test func commandsMadeBeforeConnectingRunFirstInFirstOutOnceConnected() async throws {
        let server = InMemoryServer()
        server.onRequest("ack") { $0 }
        let connection = makeConnection(server)
        let first = Task { try await connection.send("a", 1) }
        try await connection.waitForQueued(1)
        let second = Task { try await connection.request("ack", 2, timeout: .seconds(30)) }
        try await connection.waitForQueued(2)
        let third = Task { try await connection.send("c", 3) }
        try await connection.waitForQueued(3)
        #expect(server.received.isEmpty, "nothing is sent before the connection is up")

        try await withTimeout(10, "connect") { try await connection.connect() }
        try await withTimeout(10, "the queued commands") {
            try await first.value
            #expect(try await second.value == Response(values: [2]))
            try await third.value
        }
        #expect(server.received == [
            .init(kind: .send, event: "a", payload: 1),
            .init(kind: .request, event: "ack", payload: 2),
            .init(kind: .send, event: "c", payload: 3),
        ])
        #expect(connection.queuedCommandCount == 0)
    }

    @Test func commandsMadeWhileConnectedSkipTheQueue() async throws {
        let server = InMemoryServer()
        server.onRequest("ack") { $0 }
        let connection = makeConnection(server)
        try await withTimeout(10, "connect") { try await connection.connect() }
        try await connection.send("a", 1)
        let reply = try await connection.request("ack", ["x": 1], timeout: .seconds(5))
        #expect(reply.value == ["x": 1])
        #expect(server.received.map(\.event) == ["a", "ack"])
    }

    @Test func subscriptionsMadeBeforeConnectingTakeEffectOnConnect() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        let news = connection.events(named: "news")
        let other = connection.events(named: "other")
        try await withTimeout(10, "connect") { try await connection.connect() }
        server.push("news", 1)
        server.push("other", "x")
        server.push("news", 2)
        #expect(try await news.first(2) == [1, 2])
        #expect(try await other.first(1) == ["x"])
    }

    @Test func aQueuedRequestTimesOutWhileStillQueued() async throws {
        let clock = ManualClock()
        let server = InMemoryServer()
        server.onRequest("ack") { $0 }
        let connection = makeConnection(server, clock: clock)
        let request = Task { try await connection.request("ack", 1, timeout: .seconds(5)) }
        try await connection.waitForQueued(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let error = await failure(of: request)
        #expect(error as? ConnectionError == .timedOut(event: "ack", after: .seconds(5)))
        try await connection.waitForQueued(0, "the timed-out request leaves the queue")

        try await withTimeout(10, "connect") { try await connection.connect() }
        try await connection.send("marker", .null)
        #expect(server.received.map(\.event) == ["marker"], "a timed-out request is never sent")
    }

    @Test func aRequestDeadlineCountsFromTheCallQueuedTimeIncluded() async throws {
        let clock = ManualClock()
        let server = InMemoryServer()  // no handler for "slow": never answered
        let connection = makeConnection(server, clock: clock)
        let request = Task { try await connection.request("slow", 1, timeout: .seconds(5)) }
        try await connection.waitForQueued(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(3))  // 3 s in the queue

        let sent = server.messages()
        try await withTimeout(10, "connect") { try await connection.connect() }
        _ = try await sent.first(1, "the request reaches the server")
        clock.advance(by: .seconds(2))  // 5 s since the call: the deadline
        let error = await failure(of: request)
        #expect(error as? ConnectionError == .timedOut(event: "slow", after: .seconds(5)))
    }

    @Test func aRequestAnsweredBeforeItsDeadlineSucceedsAfterQueueing() async throws {
        let clock = ManualClock()
        let server = InMemoryServer()
        server.onRequest("ack") { $0 }
        let connection = makeConnection(server, clock: clock)
        let request = Task { try await connection.request("ack", 7, timeout: .seconds(5)) }
        try await connection.waitForQueued(1)
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(4_900))
        try await withTimeout(10, "connect") { try await connection.connect() }
        #expect(try await withTimeout(10, "the reply") { try await request.value } == Response(values: [7]))
    }

    @Test func releasingFailsEveryQueuedCommandWithAClearError() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        let send = Task { try await connection.send("a", 1) }
        try await connection.waitForQueued(1)
        let request = Task { try await connection.request("b", 2, timeout: .seconds(60)) }
        try await connection.waitForQueued(2)
        let events = connection.events(named: "news")
        let states = connection.stateChanges()

        try await connection.disconnect()
        try await connection.release()

        #expect(await failure(of: send) as? ConnectionError == .released)
        #expect(await failure(of: request) as? ConnectionError == .released)
        #expect(ConnectionError.released.description.contains("released"))
        #expect(try await withTimeout(5, "event stream ends") { await events.reduce(0) { count, _ in count + 1 } } == 0)
        #expect(try await withTimeout(5, "state stream ends") { await states.reduce(into: []) { $0.append($1) } } == [.created, .disconnected, .released])
        #expect(server.received.isEmpty)
    }

    @Test func aFullQueueRefusesTheCaller() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server) { $0.maxQueuedCommands = 2 }
        let first = Task { try await connection.send("a", 1) }
        let second = Task { try await connection.send("b", 2) }
        try await connection.waitForQueued(2)
        await #expect(throws: ConnectionError.queueFull(limit: 2)) {
            try await connection.send("c", 3)
        }
        await #expect(throws: ConnectionError.queueFull(limit: 2)) {
            try await connection.request("d", 4, timeout: .seconds(5))
        }
        try await withTimeout(10, "connect") { try await connection.connect() }
        try await withTimeout(10, "the queued sends") {
            try await first.value
            try await second.value
        }
        #expect(Set(server.received.map(\.event)) == ["a", "b"])
    }

    @Test func aCancelledQueuedSendLeavesTheQueue() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        let send = Task { try await connection.send("a", 1) }
        try await connection.waitForQueued(1)
        send.cancel()
        #expect(await failure(of: send) as? ConnectionError == .cancelled)
        #expect(connection.queuedCommandCount == 0)
        try await withTimeout(10, "connect") { try await connection.connect() }
        try await connection.send("b", 2)
        #expect(server.received.map(\.event) == ["b"])
    }

    @Test func requestsInFlightFailWhenTheTransportDropsAndQueuedOnesWait() async throws {
        let server = InMemoryServer()
        server.onRequest("ack") { $0 }
        let connection = makeConnection(server)
        try await withTimeout(10, "connect") { try await connection.connect() }
        let messages = server.messages()
        let inFlight = Task { try await connection.request("never", 1, timeout: .seconds(60)) }
        _ = try await messages.first(1, "the request reaches the server")

        server.dropConnections(reason: "network lost")
        let error = await failure(of: inFlight)
        #expect(error as? ConnectionError == .connectionLost("network lost"))
        #expect(connection.state == .disconnected)

        let queued = Task { try await connection.request("ack", 2, timeout: .seconds(60)) }
        try await connection.waitForQueued(1)
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        #expect(try await withTimeout(10, "the queued request") { try await queued.value } == Response(values: [2]))
        #expect(server.received.map(\.event) == ["never", "ack"], "the lost request is not resent")
    }

    @Test func anAppDisconnectFailsRequestsInFlightButKeepsTheQueue() async throws {
        let server = InMemoryServer()
        let connection = makeConnection(server)
        try await withTimeout(10, "connect") { try await connection.connect() }
        let messages = server.messages()
        let inFlight = Task { try await connection.request("never", 1, timeout: .seconds(60)) }
        _ = try await messages.first(1, "the request reaches the server")
        try await connection.disconnect()
        #expect(await failure(of: inFlight) as? ConnectionError == .connectionLost("the app disconnected"))
        let queued = Task { try await connection.send("later", 2) }
        try await connection.waitForQueued(1)
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        try await withTimeout(10, "the queued send") { try await queued.value }
        #expect(server.received.map(\.event) == ["never", "later"])
    }

    @Test func aSlowQueuedRequestHoldsTheCommandsBehindItSoOrderHolds() async throws {
        let server = InMemoryServer()
        let gate = AsyncStream<Void>.makeStream()
        server.onRequest("slow") { payload in
            for await _ in gate.stream { break }
            return payload
        }
        let connection = makeConnection(server)
        let slow = Task { try await connection.request("slow", 1, timeout: .seconds(60)) }
        try await connection.waitForQueued(1)
        let after = Task { try await connection.send("after", 2) }
        try await connection.waitForQueued(2)
        let messages = server.messages()
        try await withTimeout(10, "connect") { try await connection.connect() }
        _ = try await messages.first(1, "the slow request reaches the server")
        #expect(server.received.map(\.event) == ["slow"], "the send waits behind the unanswered request")
        #expect(connection.queuedCommandCount == 1)
        gate.continuation.yield()
        try await withTimeout(10, "both commands") {
            _ = try await slow.value
            try await after.value
        }
        #expect(server.received.map(\.event) == ["slow", "after"])
    }
}
