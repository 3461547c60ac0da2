import Foundation
import Harness
import NIOConcurrencyHelpers
@testable import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Nothing acknowledged is lost, nothing buffered is lost, every caller hears back: the client
/// under cuts, stalls, delays and server restarts.
@Suite("Fault tolerance")
struct FaultToleranceTests {
    @Test func fiveThousandAckedEventsSurviveACutEvery200Milliseconds() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        var configuration = Manager.Configuration.quickReconnect()
        configuration.retries = 1_000
        configuration.defaultAckTimeout = .seconds(2)
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let socket = manager.socket()
        try await withTimeout(20, "connect") { try await socket.connect() }

        // The fault: every connection through the proxy is cut every 200 ms.
        let cutter = proxy.cutRepeatedly(every: .milliseconds(200))
        let total = 5_000
        let acked = try await withTimeout(240, "5,000 acked events") {
            var acked: [Int] = []
            for id in 0..<total {
                let reply = try await socket.emitWithAck("work", ["id": .number(Double(id))])
                acked.append(reply.first?.intValue ?? -1)
            }
            return acked
        }
        cutter.cancel()
        let cuts = await cutter.value

        #expect(acked == Array(0..<total), "every event acknowledged, with its own id, in order")
        let seen = harness.work
        #expect(seen.count >= total, "the server saw each at least once")
        #expect(Set(seen).count == total, "de-duplicated by payload id: exactly 5,000")
        #expect(Set(seen) == Set(0..<total))
        #expect(cuts > 0)
        print("5,000 acked events: \(cuts) cuts, \(seen.count - total) duplicates the server de-duplicated")

        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    @Test func bufferedEmitsArriveInOrderAfterAServerRestart() async throws {
        // Below the ephemeral range, so no other test's server takes it while this one is down.
        let first = try await TestPorts.start { try await EmbeddedHarness.start(port: $0) }
        let port = first.port
        let manager = try Manager(url: first.url, configuration: .quickReconnect())
        let socket = manager.socket()
        let statuses = socket.statusChanges
        try await withTimeout(20, "connect") { try await socket.connect() }

        for value in 0..<1_000 { try socket.emit("seq", .number(Double(value))) }
        try await first.waitForSeq(1_000)

        // The server goes away in the middle of the stream; the rest is emitted while it is down.
        await first.stop()
        _ = try await statuses.firstMatch(within: 20, "the client noticing") { status in
            if case .disconnected = status { return true }
            return false
        }
        for value in 1_000..<2_000 { try socket.emit("seq", .number(Double(value))) }
        #expect(!socket.connected)

        let second = try await TestPorts.restart(on: port) { try await EmbeddedHarness.start(port: $0) }
        do {
            try await second.waitForSeq(1_000)
        } catch {
            Issue.record("the restarted server on \(port) has \(second.seq.count); the client: \(manager.diagnostics.joined(separator: "\n"))")
            throw error
        }
        #expect(first.seq == Array(0..<1_000))
        #expect(second.seq == Array(1_000..<2_000), "all 1,000 buffered emits, in order, exactly once, after the restart")
        #expect(socket.connected)

        await manager.close()
        await second.stop()
    }

    @Test func aStalledConnectionIsDetectedByPingTimeoutAndReplaced() async throws {
        // A ping every second; 3 s to answer it: the server's heartbeat timers run on the event
        // loops and keep time even when a starved test process answers late, and a pong later
        // than the timeout would end the connection (as `transport close`) before the stall.
        let harness = try await EmbeddedHarness.start {
            $0.pingInterval = .seconds(1)
            $0.pingTimeout = .seconds(3)
        }
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: .quickReconnect())
        let socket = manager.socket()
        let disconnects = socket.events(named: "disconnect")
        let connects = socket.events(named: "connect")
        try await withTimeout(20, "connect") { try await socket.connect() }
        _ = try await connects.first(1)

        proxy.stallAll()
        let reason = try await disconnects.first(1, within: 20, "the stall noticed")
        #expect(reason.first?.items == ["ping timeout"], "no bytes either way: only the heartbeat can tell")
        _ = try await connects.first(1, within: 20, "reconnected through a fresh connection")
        let reply = try await withTimeout(20, "carry on") { try await socket.emitWithAck("ack", "after the stall") }
        #expect(reply == ["after the stall"])

        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    @Test func aSlowLinkDelaysButKeepsEverythingInOrder() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        proxy.delay(.milliseconds(30))
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: .quickReconnect())
        let socket = manager.socket()
        try await withTimeout(20, "connect") { try await socket.connect() }
        for value in 0..<200 { try socket.emit("seq", .number(Double(value))) }
        let reply = try await withTimeout(20, "ack over a slow link") { try await socket.emitWithAck("ack", "slow") }
        #expect(reply == ["slow"])
        try await harness.waitForSeq(200)
        #expect(harness.seq == Array(0..<200))
        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    @Test func whenAttemptsRunOutConnectThrowsAndTheManagerSaysSo() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        proxy.refuseNewConnections(true)
        var configuration = Manager.Configuration.quickReconnect()
        configuration.reconnectionAttempts = 3
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let events = manager.events
        let socket = manager.socket()
        await #expect(throws: SocketIOError.reconnectFailed(attempts: 3)) {
            try await withTimeout(20, "connect") { try await socket.connect() }
        }
        let seen = try await events.firstMatch(within: 5, "reconnect_failed") { $0 == .reconnectFailed }
        #expect(seen == .reconnectFailed)
        #expect(!socket.active)
        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    @Test func theAppsDisconnectStopsReconnectingAndEveryWaitingCallerHearsBack() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        var configuration = Manager.Configuration.quickReconnect()
        configuration.retries = 3
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let socket = manager.socket()
        let disconnects = socket.events(named: "disconnect")
        try await withTimeout(20, "connect") { try await socket.connect() }
        proxy.refuseNewConnections(true)
        proxy.cutAll()
        _ = try await disconnects.first(1, within: 20, "the cut")
        #expect(socket.active, "after a cut the socket still wants its connection")

        // Two callers waiting: at-least-once emits queued while the connection is down.
        let waiting = (0..<2).map { index in
            Task { () -> SocketIOError? in
                do throws(SocketIOError) {
                    _ = try await socket.emitWithAck("ack", .number(Double(index)))
                    return nil
                } catch {
                    return error
                }
            }
        }
        try await withTimeout(10, "both emits queued") {
            while socket.connection.inner.withLockedValue({ $0.retryQueue.entries.count }) < 2 { await Task.yield() }
        }
        // The app gives up for good.
        socket.disconnect()
        for task in waiting {
            let error = await task.value
            #expect(error == SocketIOError.disconnected(.ioClientDisconnect), "a queued emit's caller hears the disconnect")
        }
        #expect(!socket.active)
        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    @Test func theServersDisconnectIsNotFollowedByReconnection() async throws {
        let harness = try await EmbeddedHarness.start()
        let manager = try Manager(url: harness.url, configuration: .quickReconnect())
        let socket = manager.socket()
        let disconnects = socket.events(named: "disconnect")
        let events = manager.events
        try await withTimeout(20, "connect") { try await socket.connect() }
        try socket.emit("kick")
        let reason = try await disconnects.first(1, within: 20, "kicked")
        #expect(reason.first?.items == ["io server disconnect"])
        #expect(!socket.active, "the socket will not reconnect on its own")
        let closed = try await events.firstMatch(within: 20, "the manager closing") { event in
            if case .close = event { return true }
            return false
        }
        #expect(closed == .close(.ioClientDisconnect), "the manager closed its now unused connection itself")
        #expect(manager.transport == nil)
        await manager.close()
        await harness.stop()
    }

    /// A process suspended past the heartbeat deadline wakes with a timer that has not fired: the
    /// first emit notices, closes with `ping timeout`, and the emit goes out after reconnecting.
    @Test func aHeartbeatDeadlineThatPassedWhileSuspendedIsNoticedBeforeTheNextEmit() async throws {
        let harness = try await EmbeddedHarness.start()
        let clock = ManualClock()
        var configuration = Manager.Configuration.quickReconnect()
        configuration.clock = clock
        configuration.jitter = { 0 }
        let manager = try Manager(url: harness.url, configuration: configuration)
        let socket = manager.socket()
        let echoes = socket.events(named: "echo")
        let disconnects = socket.events(named: "disconnect")
        try await withTimeout(20, "connect") { try await socket.connect() }

        clock.jump(by: .seconds(3_600))  // an hour asleep; no timer ran
        try socket.emit("echo", "after waking")
        let reason = try await disconnects.first(1, within: 20, "the expired heartbeat noticed")
        #expect(reason.first?.items == ["ping timeout"])
        #expect(!socket.connected, "nothing was written into the dead connection")

        // Reconnection runs on the same (test) clock: let its first delay pass.
        let delay = try await withTimeout(20, "the reconnection delay") { await clock.waitForSleep(1) { $0 == .milliseconds(20) } }
        clock.advance(by: delay)
        let echo = try await echoes.first(1, within: 20, "the emit, after reconnecting")
        #expect(echo.first?.items == ["after waking"])

        await manager.close()
        await harness.stop()
    }

    @Test func volatileEmitsAreDroppedWhileDisconnectedAndTheCallerIsTold() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: .quickReconnect())
        let socket = manager.socket()
        let connects = socket.events(named: "connect")
        let disconnects = socket.events(named: "disconnect")
        try await withTimeout(20, "connect") { try await socket.connect() }
        #expect(try socket.emitVolatile("seq", 1) == true)
        try await harness.waitForSeq(1)

        proxy.refuseNewConnections(true)
        proxy.cutAll()
        _ = try await disconnects.first(1, within: 20, "the cut")
        #expect(try socket.emitVolatile("seq", 2) == false, "dropped, and the caller knows")
        try socket.emit("seq", 3)  // an ordinary emit waits in the buffer
        proxy.refuseNewConnections(false)
        _ = try await connects.first(2, within: 20, "the reconnect")
        try await harness.waitForSeq(2)
        #expect(harness.seq == [1, 3], "the volatile emit was not sent later")
        await manager.close()
        await proxy.stop()
        await harness.stop()
    }
}
