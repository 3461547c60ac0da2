import Testing
@testable import Switchboard

@Suite("Keeper state machine")
struct KeeperStateMachineTests {
    let a = ConnectionID(rawValue: 1)
    let b = ConnectionID(rawValue: 2)

    @Test func theLoopStartsOnceAndAStoppedKeeperStaysStopped() {
        var machine = KeeperStateMachine()
        let answers = [machine.start(), machine.start(), machine.stop(), machine.stop(), machine.start()]
        #expect(answers == [true, false, true, false, false])
        #expect(machine.loop == .stopped)
    }

    @Test func stoppingAnIdleKeeperStopsIt() {
        var machine = KeeperStateMachine()
        let answers = [machine.stop(), machine.start()]
        #expect(answers == [false, false])
    }

    @Test func aBusyConnectionIsSkippedAndEachConnectionIsClaimedAlone() {
        var machine = KeeperStateMachine()
        let claims = [
            machine.claim(a, trigger: .interval),
            machine.claim(b, trigger: .interval),
            machine.claim(a, trigger: .interval),
        ]
        #expect(claims == [.evaluate, .evaluate, .skip])
        let finish = machine.finish(a)
        #expect(finish == .done, "an interval scan that skipped leaves nothing to redo")
        let again = machine.claim(a, trigger: .interval)
        #expect(again == .evaluate)
    }

    @Test func aBurstOfLeaseChangesMakesOneScanUntilItStarts() {
        var machine = KeeperStateMachine()
        let burst = [machine.requestScan(), machine.requestScan(), machine.requestScan()]
        #expect(burst == [true, false, false])
        machine.scanStarting(.interval)
        let afterInterval = machine.requestScan()
        #expect(!afterInterval, "an interval scan does not take the lease change's place")
        machine.scanStarting(.leaseChanged)
        let afterStart = machine.requestScan()
        #expect(afterStart, "a change after the scan looked needs a new scan")
        _ = machine.stop()
        machine.scanStarting(.leaseChanged)
        let stopped = machine.requestScan()
        #expect(!stopped)
    }

    /// A lease change's scan asked for before `stop()` that runs after it acts on nothing;
    /// before, it reconnected a connection the manager's shutdown was releasing, which then
    /// lived on outside the pool.
    @Test func aStoppedKeeperClaimsNothing() {
        var machine = KeeperStateMachine()
        _ = machine.start()
        _ = machine.requestScan()
        _ = machine.stop()
        machine.scanStarting(.leaseChanged)
        let afterLeaseChange = machine.claim(a, trigger: .leaseChanged)
        let manual = machine.claim(b, trigger: .manual)
        #expect(afterLeaseChange == .skip)
        #expect(manual == .skip)
        #expect(machine.busy.isEmpty)
        let settled = machine.scanEnded()
        #expect(settled, "and the scan still ends, so the keeper settles")
    }

    @Test func settledOnlyWhenEveryScheduledRequestedAndManualScanHasEnded() {
        var machine = KeeperStateMachine()
        #expect(machine.isSettled)
        machine.intervalScanScheduled()
        _ = machine.requestScan()
        _ = machine.requestScan()
        #expect(!machine.isSettled, "a scheduled scan counts before it starts")
        machine.scanStarting(.interval)
        machine.scanStarting(.leaseChanged)
        machine.scanStarting(.manual)
        let ends = [machine.scanEnded(), machine.scanEnded(), machine.scanEnded()]
        #expect(ends == [false, false, true], "three scans (the burst of lease changes is one)")
    }

    @Test(arguments: [KeeperStateMachine.Trigger.leaseChanged, .manual])
    func aLeaseChangeWhileBusyRescansWhenTheActionEnds(_ trigger: KeeperStateMachine.Trigger) {
        var machine = KeeperStateMachine()
        let claims = [
            machine.claim(a, trigger: .interval),
            machine.claim(a, trigger: trigger),
            machine.claim(a, trigger: trigger),
        ]
        #expect(claims == [.evaluate, .skip, .skip])
        let finish = machine.finish(a)
        #expect(finish == .rescan)
        #expect(machine.busy.isEmpty)
        let again = machine.claim(a, trigger: .interval)
        let secondFinish = machine.finish(a)
        #expect(again == .evaluate)
        #expect(secondFinish == .done, "the rescan was owed once")
    }
}
