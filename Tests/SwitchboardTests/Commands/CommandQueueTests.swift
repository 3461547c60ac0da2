import Testing
@testable import Switchboard

@Suite("Command queue")
struct CommandQueueTests {
    /// Pops every command, oldest first.
    static func drain<C>(_ queue: inout CommandQueue<C>) -> [C] {
        var commands: [C] = []
        while let next = queue.popFirst() { commands.append(next.command) }
        return commands
    }

    @Test func firstInFirstOut() throws {
        var queue = CommandQueue<String>(limit: 10)
        for (id, name) in ["a", "b", "c"].enumerated() { try queue.enqueue(name, id: UInt64(id)) }
        #expect(queue.count == 3)
        let popped = Self.drain(&queue)
        #expect(popped == ["a", "b", "c"])
        #expect(queue.isEmpty)
    }

    @Test func removedCommandsAreSkipped() throws {
        var queue = CommandQueue<String>(limit: 10)
        for (id, name) in ["a", "b", "c", "d"].enumerated() { try queue.enqueue(name, id: UInt64(id)) }
        let removed = queue.remove(1)
        let again = queue.remove(1)
        let unknown = queue.remove(42)
        #expect(removed == "b")
        #expect(again == nil, "a command leaves once")
        #expect(unknown == nil, "an unknown id is not there")
        #expect(!queue.contains(1))
        #expect(queue.contains(2))
        #expect(queue.count == 3)
        let popped = Self.drain(&queue)
        #expect(popped == ["a", "c", "d"])
    }

    /// One send waits while requests come and time out behind it: the ids of those that left
    /// are compacted away (before, the order kept one per request until the queue emptied).
    @Test func idsThatLeftDoNotPileUpBehindOneThatWaits() throws {
        var queue = CommandQueue<String>(limit: 10)
        try queue.enqueue("send", id: 0)
        for id in 1...100_000 as ClosedRange<UInt64> {
            try queue.enqueue("request \(id)", id: id)
            _ = queue.remove(id)
        }
        #expect(queue.count == 1)
        #expect(queue.orderCount <= 2 * queue.count + 32)
        try queue.enqueue("later", id: 100_001)
        #expect(Self.drain(&queue) == ["send", "later"], "the order kept")
    }

    @Test func theLimitRefusesWithATypedErrorAndFreesUpAfterAPop() throws {
        var queue = CommandQueue<Int>(limit: 2)
        try queue.enqueue(1, id: 1)
        try queue.enqueue(2, id: 2)
        var full = queue
        #expect(throws: ConnectionError.queueFull(limit: 2)) { try full.enqueue(3, id: 3) }
        #expect(full.count == 2, "a refused command is not kept")
        _ = queue.popFirst()
        try queue.enqueue(3, id: 3)
        let drained = queue.removeAll().map(\.command)
        #expect(drained == [2, 3])
    }

    @Test func removeAllDrainsInOrder() throws {
        var queue = CommandQueue<Int>(limit: 100)
        for id in 0..<50 { try queue.enqueue(id, id: UInt64(id)) }
        for id in stride(from: 0, to: 50, by: 3) { _ = queue.remove(UInt64(id)) }
        let drained = queue.removeAll()
        #expect(drained.map(\.command) == (0..<50).filter { $0 % 3 != 0 })
        #expect(queue.isEmpty)
        let next = queue.popFirst()
        #expect(next == nil)
    }

    @Test func removingTheLastCommandLeavesAnEmptyQueueThatKeepsOrder() throws {
        var queue = CommandQueue<Int>(limit: 3)
        try queue.enqueue(1, id: 1)
        _ = queue.remove(1)
        try queue.enqueue(2, id: 2)
        try queue.enqueue(3, id: 3)
        let popped = Self.drain(&queue)
        #expect(popped == [2, 3])
    }

    /// Commands refused together (the transport dropped under them) go back in the order they
    /// were made, ahead of newer ones, whatever the order of the refusals.
    @Test func commandsPutBackRunAgainInTheOrderTheyWereMade() throws {
        var queue = CommandQueue<Int>(limit: 3)
        try queue.enqueue(5, id: 5)
        try queue.enqueue(6, id: 6)
        queue.putBack(3, id: 3)
        queue.putBack(1, id: 1)
        queue.putBack(2, id: 2)
        let popped = Self.drain(&queue)
        #expect(popped == [1, 2, 3, 5, 6])
    }
}
