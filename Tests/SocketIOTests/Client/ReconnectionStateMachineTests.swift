@testable import SocketIO
import SwitchboardTestSupport
import Testing

/// When the manager reconnects, input by input.
@Suite("Reconnection state machine")
struct ReconnectionStateMachineTests {
    static func machine(enabled: Bool = true, maxAttempts: Int? = nil) -> ReconnectionStateMachine {
        ReconnectionStateMachine(
            enabled: enabled, maxAttempts: maxAttempts,
            backoff: Backoff(minimum: .seconds(1), maximum: .seconds(5), jitter: 0.5)
        )
    }

    @Test func aLossSchedulesTheFirstAttemptAndFailuresTheNext() {
        let machine = Box(Self.machine())
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0.85) == .schedule(delay: .milliseconds(575), attempt: 1))
        #expect(machine.value.isWaiting)
        // A second report while waiting changes nothing.
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0.85) == .none)
        #expect(machine.value.delayElapsed(attempt: 1) == true)
        #expect(machine.value.delayElapsed(attempt: 1) == false, "an attempt starts once")
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0.85)
                == .retry(failedAttempt: 1, delay: .milliseconds(1150), attempt: 2))
        #expect(machine.value.delayElapsed(attempt: 2) == true)
        #expect(machine.value.opened() == 2, "the reconnect event names the attempt that worked")
        #expect(machine.value.state == .idle)
        // Counting starts again after a success.
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0.85) == .schedule(delay: .milliseconds(575), attempt: 1))
    }

    @Test func theFirstOpenIsNotAReconnection() {
        let machine = Box(Self.machine())
        #expect(machine.value.opened() == nil)
    }

    @Test func attemptsRunOutThenItGivesUp() {
        let machine = Box(Self.machine(maxAttempts: 2))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .schedule(delay: .seconds(1), attempt: 1))
        #expect(machine.value.delayElapsed(attempt: 1) == true)
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .retry(failedAttempt: 1, delay: .seconds(2), attempt: 2))
        #expect(machine.value.delayElapsed(attempt: 2) == true)
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .giveUp(failedAttempt: 2))
        #expect(machine.value.state == .idle)
    }

    @Test func zeroAttemptsGivesUpAtOnce() {
        let machine = Box(Self.machine(maxAttempts: 0))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .giveUp(failedAttempt: nil))
    }

    @Test func offOrUnwantedMeansNoReconnection() {
        let off = Box(Self.machine(enabled: false))
        #expect(off.value.connectionLost(wantsConnection: true, random: 0) == .none)
        let unwanted = Box(Self.machine())
        #expect(unwanted.value.connectionLost(wantsConnection: false, random: 0) == .none)
        // Nobody wants a connection any more after a failed attempt: stop.
        let stopping = Box(Self.machine())
        _ = stopping.value.connectionLost(wantsConnection: true, random: 0)
        _ = stopping.value.delayElapsed(attempt: 1)
        #expect(stopping.value.connectionLost(wantsConnection: false, random: 0) == .none)
        #expect(stopping.value.state == .idle)
    }

    @Test func stopCancelsAWaitingAttempt() {
        let machine = Box(Self.machine())
        _ = machine.value.connectionLost(wantsConnection: true, random: 0)
        machine.value.stop()
        #expect(machine.value.delayElapsed(attempt: 1) == false, "a timer that fires after the app's disconnect does nothing")
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .schedule(delay: .seconds(1), attempt: 1))
    }
}
