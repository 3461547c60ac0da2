import NIOConcurrencyHelpers
import SwitchboardCore
import SwitchboardTestSupport
import Testing

@testable import SocketIOPostgres

/// The listening connection's liveness check, without a database: the machine event by event,
/// and the watchdog that runs it on a manual clock.
@Suite("Listening connection liveness")
struct ListenerLivenessTests {
    @Test("a connection is probed an interval after it was last heard from; answered, the next probe is an interval later")
    func probesAnInterval() {
        var liveness = ListenerLiveness(interval: .seconds(5), timeout: .seconds(10), openedAt: .zero)
        #expect(liveness.check(at: .zero) == .wait(until: .seconds(5)))
        #expect(liveness.check(at: .seconds(4)) == .wait(until: .seconds(5)))
        #expect(liveness.check(at: .seconds(5)) == .probe(answerBy: .seconds(10)))
        // One probe at a time.
        #expect(liveness.check(at: .seconds(6)) == .wait(until: .seconds(10)))
        liveness.heard(at: .seconds(6))
        #expect(liveness.check(at: .seconds(6)) == .wait(until: .seconds(11)))
        #expect(liveness.check(at: .seconds(11)) == .probe(answerBy: .seconds(16)))
    }

    @Test("nothing heard for the timeout: silent, once; an answer after that changes nothing")
    func silentAfterTimeout() {
        var liveness = ListenerLiveness(interval: .seconds(5), timeout: .seconds(10), openedAt: .seconds(100))
        #expect(liveness.check(at: .seconds(105)) == .probe(answerBy: .seconds(110)))
        #expect(liveness.check(at: .milliseconds(109_999)) == .wait(until: .seconds(110)))
        #expect(liveness.check(at: .seconds(110)) == .silent)
        #expect(liveness.check(at: .seconds(111)) == .stop)
        liveness.heard(at: .seconds(111))
        #expect(liveness.check(at: .seconds(112)) == .stop)
    }

    @Test("a check that comes late (a suspended process) past the timeout says silent without a probe")
    func lateCheck() {
        var liveness = ListenerLiveness(interval: .seconds(5), timeout: .seconds(10), openedAt: .zero)
        #expect(liveness.check(at: .seconds(30)) == .silent)
    }

    /// The watchdog's probes, answered or left hanging as the test says.
    final class Probes: Sendable {
        private let answering = NIOLockedValueBox(true)
        let sent: AsyncStream<Void>
        private let sink: AsyncStream<Void>.Continuation

        init() { (sent, sink) = AsyncStream.makeStream(of: Void.self) }

        func stopAnswering() { answering.withLockedValue { $0 = false } }

        func probe() async throws {
            sink.yield()
            guard !answering.withLockedValue({ $0 }) else { return }
            // A stalled path: no answer, ever (the watchdog lets the probe go at its deadline).
            try await Task.sleep(for: .seconds(3600))
        }
    }

    @Test("the watchdog on a manual clock: probes while answered, declares the connection silent a timeout after the last answer, then stops")
    func watchdogOnManualClock() async throws {
        let clock = ManualClock()
        let timeline = Timeline(clock)
        let probes = Probes()
        let (silences, silenced) = AsyncStream.makeStream(of: Duration.self)
        let watchdog = Task {
            await ListenerWatchdog.run(interval: .seconds(5), timeout: .seconds(10), timeline: timeline, probe: probes.probe) {
                silenced.yield(timeline.now())
                silenced.finish()
            }
        }

        // Answered at 5 s: the next probe is due at 10 s.
        await clock.waitForSleeper(dueAt: .seconds(5))
        clock.advance(by: .seconds(5))
        _ = try await probes.sent.first(1, within: 10, "the first probe")
        await clock.waitForSleeper(dueAt: .seconds(10))

        // Unanswered from 10 s on: silent at 15 s, a timeout after the last answer.
        probes.stopAnswering()
        clock.advance(by: .seconds(5))
        _ = try await probes.sent.first(1, within: 10, "the second probe")
        await clock.waitForSleeper(dueAt: .seconds(15))
        clock.advance(by: .seconds(5))
        #expect(try await silences.first(1, within: 10, "the silence") == [.seconds(15)])
        try await withTimeout(10, "the watchdog's end") { await watchdog.value }
    }

    @Test("a cancelled watchdog ends without declaring anything")
    func cancelled() async throws {
        let clock = ManualClock()
        let timeline = Timeline(clock)
        let silent = NIOLockedValueBox(false)
        let watchdog = Task {
            await ListenerWatchdog.run(interval: .seconds(5), timeout: .seconds(10), timeline: timeline, probe: {}) {
                silent.withLockedValue { $0 = true }
            }
        }
        await clock.waitForSleeper(dueAt: .seconds(5))
        watchdog.cancel()
        try await withTimeout(10, "the watchdog's end") { await watchdog.value }
        #expect(!silent.withLockedValue { $0 })
    }
}
