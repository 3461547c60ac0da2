import NIOConcurrencyHelpers
import SwitchboardCore
import SwitchboardTestSupport
import Testing

/// `PendingReplies`: every caller is answered exactly once, by its reply, its deadline or its
/// owner, whichever comes first.
@Suite(.timeLimit(.minutes(1))) struct PendingRepliesTests {
    struct Failed: Error, Equatable {
        let reason: String
    }

    /// Records what each id was answered with, in order.
    final class Outcomes: Sendable {
        private let box = NIOLockedValueBox<[(Int, Result<String, Failed>)]>([])
        var all: [(Int, Result<String, Failed>)] { box.withLockedValue { $0 } }
        func completion(_ id: Int) -> @Sendable (Result<String, Failed>) -> Void {
            { result in self.box.withLockedValue { $0.append((id, result)) } }
        }
        func answers(for id: Int) -> [Result<String, Failed>] { all.filter { $0.0 == id }.map(\.1) }
    }

    /// A deadline of `after` on `clock` that fails with "timed out <id>".
    static func deadline(after: Duration, on clock: ManualClock) -> PendingReplies<Int, String, Failed>.Deadline {
        .init(after: after, on: Timeline(clock)) { Failed(reason: "timed out \($0)") }
    }

    @Test func aReplyAnswersOnceAndLaterAnswersAreRefused() {
        let pending = PendingReplies<Int, String, Failed>()
        let outcomes = Outcomes()
        pending.add(1, complete: outcomes.completion(1))
        #expect(pending.contains(1))
        #expect(pending.settle(1, with: .success("one")))
        #expect(!pending.settle(1, with: .success("again")))
        pending.failAll(with: Failed(reason: "closed"))
        #expect(outcomes.answers(for: 1) == [.success("one")])
        #expect(pending.count == 0)
    }

    @Test func theDeadlineFailsTheCallerOnTheInjectedClock() async {
        let clock = ManualClock()
        let pending = PendingReplies<Int, String, Failed>()
        let outcomes = Outcomes()
        let deadline = Self.deadline(after: .seconds(5), on: clock)
        pending.add(7, deadline: deadline, complete: outcomes.completion(7))
        pending.add(8, deadline: deadline, complete: outcomes.completion(8))
        // One timer for both: the second deadline is not earlier than the first.
        await clock.waitForSleepers(1)
        #expect(clock.sleeperCount == 1)
        #expect(pending.settle(8, with: .success("eight")))
        clock.advance(by: .seconds(4))
        #expect(pending.contains(7))
        clock.advance(by: .seconds(1))
        await waitUntil { outcomes.answers(for: 7).count == 1 }
        #expect(outcomes.answers(for: 7) == [.failure(Failed(reason: "timed out 7"))])
        #expect(outcomes.answers(for: 8) == [.success("eight")])
        #expect(!pending.settle(7, with: .success("late")))
        // Nothing waits any more: the timer was not armed again.
        await waitUntil { clock.sleeperCount == 0 }
    }

    @Test func anAnsweredCallerLeavesTheTimerWhichThenServesTheNextDeadline() async {
        let clock = ManualClock()
        let pending = PendingReplies<Int, String, Failed>()
        let outcomes = Outcomes()
        let deadline = Self.deadline(after: .seconds(5), on: clock)
        pending.add(1, deadline: deadline, complete: outcomes.completion(1))
        await clock.waitForSleepers(1)
        #expect(pending.settle(1, with: .success("one")))
        clock.advance(by: .seconds(2))
        // Added at 2 s, due at 7 s: the timer armed for 5 s stays, no second one.
        pending.add(2, deadline: deadline, complete: outcomes.completion(2))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(3))
        // At 5 s the timer fires, finds 2 not due and arms itself for 7 s.
        await clock.waitForSleepers(1)
        #expect(pending.contains(2))
        clock.advance(by: .milliseconds(1_999))
        #expect(pending.contains(2))
        clock.advance(by: .milliseconds(1))
        await waitUntil { outcomes.answers(for: 2).count == 1 }
        #expect(outcomes.answers(for: 2) == [.failure(Failed(reason: "timed out 2"))])
        await waitUntil { clock.sleeperCount == 0 }
    }

    @Test func anEarlierDeadlineTakesTheTimerAndTheLaterOneStillExpires() async {
        let clock = ManualClock()
        let pending = PendingReplies<Int, String, Failed>()
        let outcomes = Outcomes()
        func deadline(_ seconds: Int) -> PendingReplies<Int, String, Failed>.Deadline {
            Self.deadline(after: .seconds(seconds), on: clock)
        }
        pending.add(10, deadline: deadline(10), complete: outcomes.completion(10))
        await clock.waitForSleepers(1)
        pending.add(2, deadline: deadline(2), complete: outcomes.completion(2))
        // The 10 s timer is cancelled for a 2 s one.
        _ = await clock.waitForSleep(1, matching: { $0 == .seconds(2) })
        await waitUntil { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(2))
        await waitUntil { outcomes.answers(for: 2).count == 1 }
        #expect(pending.contains(10))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(8))
        await waitUntil { outcomes.answers(for: 10).count == 1 }
        #expect(outcomes.all.map(\.0) == [2, 10])
    }

    @Test func failingTheLastCallersStopsTheTimerAndSoDoesTheOwnerGoing() async {
        let clock = ManualClock()
        let outcomes = Outcomes()
        let deadline = Self.deadline(after: .seconds(5), on: clock)
        var pending: PendingReplies<Int, String, Failed>? = PendingReplies()
        pending?.add(1, deadline: deadline, complete: outcomes.completion(1))
        pending?.add(2, deadline: deadline, complete: outcomes.completion(2))
        await clock.waitForSleepers(1)
        pending?.fail([1], with: Failed(reason: "left"))
        #expect(clock.sleeperCount == 1, "2 still waits: the timer stays")
        pending?.fail([2], with: Failed(reason: "left"))
        await waitUntil { clock.sleeperCount == 0 }

        pending?.add(3, deadline: deadline, complete: outcomes.completion(3))
        await clock.waitForSleepers(1)
        #expect(pending?.settle(3, with: .success("three")) == true)
        #expect(clock.sleeperCount == 1, "answered in time: the timer stays for the next call")
        pending = nil
        await waitUntil { clock.sleeperCount == 0 }
        #expect(outcomes.all.count == 3)
    }

    @Test func failingEveryCallerStopsTheTimer() async {
        let clock = ManualClock()
        let pending = PendingReplies<Int, String, Failed>()
        let outcomes = Outcomes()
        let deadline = Self.deadline(after: .seconds(5), on: clock)
        pending.add(1, deadline: deadline, complete: outcomes.completion(1))
        await clock.waitForSleepers(1)
        pending.failAll(with: Failed(reason: "closed"))
        await waitUntil { clock.sleeperCount == 0 }
        #expect(outcomes.answers(for: 1) == [.failure(Failed(reason: "closed"))])
    }

    @Test func aLimitRefusesCallersBeyondIt() {
        let pending = PendingReplies<Int, String, Failed>()
        let outcomes = Outcomes()
        #expect(pending.add(1, limit: 2, complete: outcomes.completion(1)))
        #expect(pending.add(2, limit: 2, complete: outcomes.completion(2)))
        #expect(!pending.add(3, limit: 2, complete: outcomes.completion(3)))
        #expect(Set(pending.ids) == [1, 2])
        pending.settle(1, with: .success("one"))
        #expect(pending.add(3, limit: 2, complete: outcomes.completion(3)))
    }

    @Test func theOwnerFailsSomeOrAll() {
        let pending = PendingReplies<Int, String, Failed>()
        let outcomes = Outcomes()
        for id in 1...4 { pending.add(id, complete: outcomes.completion(id)) }
        pending.fail([1, 2, 9], with: Failed(reason: "namespace left"))
        #expect(Set(pending.ids) == [3, 4])
        pending.failAll(with: Failed(reason: "closed"))
        #expect(pending.count == 0)
        #expect(outcomes.answers(for: 1) == [.failure(Failed(reason: "namespace left"))])
        #expect(outcomes.answers(for: 4) == [.failure(Failed(reason: "closed"))])
        #expect(outcomes.all.count == 4)
    }
}

/// Yields until `condition` holds (no sleeps): the timer tasks run on other threads.
private func waitUntil(_ condition: @Sendable () -> Bool) async {
    while !condition() { await Task.yield() }
}
