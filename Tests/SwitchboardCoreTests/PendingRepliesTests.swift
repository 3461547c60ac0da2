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
        let deadline = PendingReplies<Int, String, Failed>.Deadline(after: .seconds(5), on: Timeline(clock)) {
            Failed(reason: "timed out \($0)")
        }
        pending.add(7, deadline: deadline, complete: outcomes.completion(7))
        pending.add(8, deadline: deadline, complete: outcomes.completion(8))
        await clock.waitForSleepers(2)
        #expect(pending.settle(8, with: .success("eight")))
        clock.advance(by: .seconds(4))
        #expect(pending.contains(7))
        clock.advance(by: .seconds(1))
        await waitUntil { outcomes.answers(for: 7).count == 1 }
        #expect(outcomes.answers(for: 7) == [.failure(Failed(reason: "timed out 7"))])
        #expect(outcomes.answers(for: 8) == [.success("eight")])
        #expect(!pending.settle(7, with: .success("late")))
        // The answered caller's timer was cancelled: nobody sleeps on the clock any more.
        await waitUntil { clock.sleeperCount == 0 }
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
