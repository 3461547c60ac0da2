@testable import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// socket.io's `retries` queue, input by input.
@Suite("Retry queue")
struct RetryQueueTests {
    private func sent(_ action: RetryQueue.Action) -> (sequence: Int, tries: Int)? {
        if case .send(let entry) = action { return (entry.sequence, entry.tries) }
        return nil
    }

    @Test func onlyTheHeadIsInFlightAndTheNextGoesAfterItsAck() {
        let queue = Box(RetryQueue())
        let first = queue.value.enqueue(event: "echo", items: [1], timeout: .seconds(1), retries: 3)
        let second = queue.value.enqueue(event: "echo", items: [2], timeout: .seconds(1), retries: 3)
        #expect(sent(queue.value.drain(connected: true, force: false))! == (first, 1))
        #expect(sent(queue.value.drain(connected: true, force: false)) == nil, "one in flight")
        guard case .finish(first, .success([1])) = queue.value.tryEnded(sequence: first, tries: 1, result: .success([1])) else {
            Issue.record("the head should finish with its ack")
            return
        }
        #expect(sent(queue.value.drain(connected: true, force: false))! == (second, 1))
    }

    @Test func aFailedTryIsResentUntilRetriesRunOut() {
        let queue = Box(RetryQueue())
        let only = queue.value.enqueue(event: "ack", items: [], timeout: .milliseconds(50), retries: 3)
        for tryNumber in 1...3 {
            #expect(sent(queue.value.drain(connected: true, force: false))! == (only, tryNumber))
            guard case .none = queue.value.tryEnded(sequence: only, tries: tryNumber, result: .failure(.ackTimeout)) else {
                Issue.record("try \(tryNumber) has tries left")
                return
            }
        }
        #expect(sent(queue.value.drain(connected: true, force: false))! == (only, 4), "1 + 3 tries, as socket.io's test")
        guard case .finish(only, .failure(.ackTimeout)) = queue.value.tryEnded(sequence: only, tries: 4, result: .failure(.ackTimeout)) else {
            Issue.record("after 1 + retries tries the caller gets the error")
            return
        }
        #expect(queue.value.entries.isEmpty)
    }

    @Test func nothingGoesWhileDisconnectedAndTheHeadIsForcedAfterReconnecting() {
        let queue = Box(RetryQueue())
        let only = queue.value.enqueue(event: "e", items: [], timeout: .seconds(1), retries: 5)
        #expect(sent(queue.value.drain(connected: false, force: false)) == nil)
        #expect(sent(queue.value.drain(connected: true, force: false))! == (only, 1))
        // Connection lost with the try in flight, then back: the head goes again at once.
        #expect(sent(queue.value.drain(connected: true, force: true))! == (only, 2))
        // The answer to the first try is stale now.
        guard case .none = queue.value.tryEnded(sequence: only, tries: 1, result: .success([])) else {
            Issue.record("a late answer to an older try is ignored")
            return
        }
        #expect(queue.value.entries.count == 1)
    }

    @Test func removingTheHeadLetsTheNextGoAndRemoveAllReportsEveryone() {
        let queue = Box(RetryQueue())
        let first = queue.value.enqueue(event: "a", items: [], timeout: .seconds(1), retries: 1)
        let second = queue.value.enqueue(event: "b", items: [], timeout: .seconds(1), retries: 1)
        let third = queue.value.enqueue(event: "c", items: [], timeout: .seconds(1), retries: 1)
        _ = queue.value.drain(connected: true, force: false)
        #expect(queue.value.remove(sequence: first) == true)
        #expect(queue.value.remove(sequence: third) == false)
        #expect(queue.value.removeAll() == [second])
    }
}
