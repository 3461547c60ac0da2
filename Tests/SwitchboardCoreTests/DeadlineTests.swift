import SwitchboardCore
import SwitchboardTestSupport
import Testing

/// `Timeline.withDeadline` returns at its deadline even when the body never notices
/// cancellation, on the injected clock.
@Suite struct DeadlineTests {
    struct Late: Error, Equatable {}

    @Test("a body that ignores cancellation: the deadline's error at the deadline, not when the body ends")
    func bodyIgnoringCancellation() async throws {
        let clock = ManualClock()
        let timeline = Timeline(clock)
        let gate = Gate()
        let outcome = Task {
            try await timeline.withDeadline(.seconds(5), onDeadline: { Late() }) {
                await gate.wait()
                return 1
            }
        }
        _ = await clock.waitForSleep(1) { $0 == .seconds(5) }
        clock.advance(by: .seconds(5))
        await #expect(throws: Late.self) { try await outcome.value }
        gate.open()
    }

    @Test("a body that finishes first: its value; a body's own error passes through")
    func bodyFirst() async throws {
        let clock = ManualClock()
        let timeline = Timeline(clock)
        let value = try await timeline.withDeadline(.seconds(5), onDeadline: { Late() }) { 7 }
        #expect(value == 7)
        let thrown = await #expect(throws: (any Error).self) {
            try await timeline.withDeadline(.seconds(5), onDeadline: { Late() }) { () async throws -> Int in throw CancellationError() }
        }
        #expect(thrown is CancellationError, "the body's own error passes through")
    }

    @Test("cancelling the caller ends the wait at once, even when the body ignores it")
    func callerCancelled() async throws {
        let timeline = Timeline(ManualClock())
        let gate = Gate()
        let entered = Gate()
        let outcome = Task {
            try await timeline.withDeadline(.seconds(5), onDeadline: { Late() }) {
                entered.open()
                await gate.wait()
                return 1
            }
        }
        await entered.wait()
        outcome.cancel()
        await #expect(throws: CancellationError.self) { try await outcome.value }
        gate.open()
    }
}
