import Testing
@testable import SocketIOServer

/// One drainer at a time, batches in queue order.
@Suite("LinkOutbox")
struct LinkOutboxTests {
    @Test func theFirstToQueueDrainsAndLaterItemsJoinItsNextBatch() {
        var outbox = LinkOutbox<Int>()
        let first = outbox.append(contentsOf: [1, 2])
        #expect(first, "nobody drains: the caller does")
        let second = outbox.append(contentsOf: [3])
        #expect(!second, "one drainer at a time: the second caller only queues")
        #expect(outbox.take() == [1, 2, 3])
        let third = outbox.append(contentsOf: [4])
        #expect(!third, "still draining until a take finds nothing")
        #expect(outbox.take() == [4])
        #expect(outbox.take() == nil)
        #expect(!outbox.isDraining)
        let fourth = outbox.append(contentsOf: [5])
        #expect(fourth, "the next one to queue drains again")
        #expect(outbox.take() == [5])
    }

    @Test func queueingNothingNamesNoDrainer() {
        var outbox = LinkOutbox<Int>()
        let drains = outbox.append(contentsOf: [])
        #expect(!drains)
        #expect(!outbox.isDraining)
        #expect(outbox.take() == nil)
    }
}
