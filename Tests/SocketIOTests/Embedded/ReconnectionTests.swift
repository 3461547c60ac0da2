import Foundation
import Harness
import NIOConcurrencyHelpers
@testable import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Automatic reconnection against the embedded server, with real faults: a proxy that cuts,
/// stalls and refuses, a server that stops and comes back on the same port.
@Suite("Reconnection")
struct ReconnectionTests {
    /// The delays of ten failed attempts on a test clock are the formula's, then a success
    /// resets the counter.
    @Test func backoffOnATestClockThenTheCounterResetsAfterSuccess() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        proxy.refuseNewConnections(true)
        let clock = ManualClock()
        let draws: [Double] = [0.05, 0.15, 0.55, 0.85, 0.95, 0.3, 0.7, 0.01, 0.99, 0.5, 0.85, 0.85]
        let drawIndex = NIOLockedValueBox(0)
        var configuration = Manager.Configuration.quickReconnect()
        configuration.reconnectionDelay = .seconds(1)
        configuration.reconnectionDelayMax = .seconds(5)
        configuration.connectTimeout = .seconds(60)
        configuration.clock = clock
        configuration.jitter = { drawIndex.withLockedValue { index in defer { index += 1 }; return draws[index % draws.count] } }
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let events = manager.events
        let socket = manager.socket()
        socket.startConnecting()

        /// A backoff delay: at most the cap (timeouts on this clock are far longer).
        let isBackoff: @Sendable (Duration) -> Bool = { $0 <= .seconds(5) }
        var expected = Backoff(minimum: .seconds(1), maximum: .seconds(5), jitter: 0.5)
        let bounds: [ClosedRange<Duration>] = [
            .milliseconds(551) ... .milliseconds(1499), .milliseconds(1101) ... .milliseconds(2999),
            .milliseconds(2201) ... .seconds(5), .milliseconds(4401) ... .seconds(5),
        ] + Array(repeating: .seconds(5) ... .seconds(5), count: 6)
        #expect(Self.kind(try await Self.next(events, "the first failure")) == "error")
        for attempt in 1...10 {
            let delay = try await withTimeout(10, "delay \(attempt)") { await clock.waitForSleep(attempt, matching: isBackoff) }
            #expect(delay == expected.nextDelay(random: draws[attempt - 1]), "attempt \(attempt) follows the formula")
            #expect(bounds[attempt - 1].contains(delay), "attempt \(attempt): \(delay)")
            clock.advance(by: delay)
            #expect(try await Self.next(events, "attempt \(attempt)") == .reconnectAttempt(attempt))
            #expect(Self.kind(try await Self.next(events, "failure \(attempt)")) == "error")
            #expect(Self.kind(try await Self.next(events, "reconnect_error \(attempt)")) == "reconnect_error")
        }
        #expect(socket.status == .connecting, "still trying, attempt after attempt")

        // The server is reachable again: attempt 11 succeeds.
        proxy.refuseNewConnections(false)
        let eleventh = try await withTimeout(10, "delay 11") { await clock.waitForSleep(11, matching: isBackoff) }
        clock.advance(by: eleventh)
        #expect(try await Self.next(events, "attempt 11") == .reconnectAttempt(11))
        #expect(try await Self.next(events, "open") == .open)
        #expect(try await Self.next(events, "reconnect") == .reconnect(11))
        try await withTimeout(10, "connected") { try await socket.connect() }

        // Lost again: counting starts from the first delay.
        proxy.refuseNewConnections(true)
        proxy.cutAll()
        #expect(Self.kind(try await Self.next(events, "close")) == "close")
        let first = try await withTimeout(10, "delay 12") { await clock.waitForSleep(12, matching: isBackoff) }
        var fresh = Backoff(minimum: .seconds(1), maximum: .seconds(5), jitter: 0.5)
        #expect(first == fresh.nextDelay(random: draws[11]), "the counter reset after the success")
        clock.advance(by: first)
        #expect(try await Self.next(events, "attempt 1 again") == .reconnectAttempt(1))

        await manager.close()
        await proxy.stop()
        await harness.stop()
    }

    /// The event's name as socket.io spells it, without its argument.
    static func kind(_ event: ManagerEvent?) -> String {
        switch event {
        case nil: "none"
        case .open?: "open"
        case .ping?: "ping"
        case .upgrade?: "upgrade"
        case .close?: "close"
        case .error?: "error"
        case .reconnectAttempt?: "reconnect_attempt"
        case .reconnectError?: "reconnect_error"
        case .reconnect?: "reconnect"
        case .reconnectFailed?: "reconnect_failed"
        }
    }

    /// The next manager event other than heartbeats and upgrades.
    static func next(_ events: AsyncStream<ManagerEvent>, _ what: String) async throws -> ManagerEvent? {
        try await events.firstMatch(within: 20, what) { event in
            switch event {
            case .ping, .upgrade: false
            case .open, .close, .error, .reconnectAttempt, .reconnectError, .reconnect, .reconnectFailed: true
            }
        }
    }
}
