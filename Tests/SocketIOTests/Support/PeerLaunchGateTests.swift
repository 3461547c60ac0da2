import NIOConcurrencyHelpers
import SwitchboardTestSupport
import Testing

/// The gate that queues peer start-ups in a parallel test run.
@Suite("Peer launch gate")
struct PeerLaunchGateTests {
    @Test func noMoreStartUpsRunAtOnceThanThereArePermits() async throws {
        let gate = PeerLaunchGate(permits: 2)
        let counts = NIOLockedValueBox((inside: 0, most: 0))
        let (entered, enteredSink) = AsyncStream<Int>.makeStream()
        let leaves = (0..<5).map { _ in AsyncStream<Void>.makeStream() }
        let starts = (0..<5).map { index in
            Task {
                try await gate.whileStarting {
                    counts.withLockedValue {
                        $0.inside += 1
                        $0.most = max($0.most, $0.inside)
                    }
                    enteredSink.yield(index)
                    for await _ in leaves[index].stream { break }
                    counts.withLockedValue { $0.inside -= 1 }
                }
            }
        }
        var order = entered.makeAsyncIterator()
        var inside: [Int] = []
        for _ in 0..<2 { inside.append(try #require(await order.next())) }
        // Each start-up that ends lets exactly one waiter in.
        for _ in 0..<3 {
            let leaving = inside.removeFirst()
            leaves[leaving].continuation.yield()
            inside.append(try #require(await order.next()))
        }
        for index in inside { leaves[index].continuation.yield() }
        for start in starts { try await start.value }
        #expect(counts.withLockedValue { $0.most } == 2)
        #expect(counts.withLockedValue { $0.inside } == 0)
    }

    @Test func aCancelledWaiterThrowsAndTheNextOneStillGetsThePermit() async throws {
        let gate = PeerLaunchGate(permits: 1)
        let (held, heldSink) = AsyncStream<Void>.makeStream()
        let (leave, leaveSink) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await gate.whileStarting {
                heldSink.yield()
                for await _ in leave { break }
            }
        }
        for await _ in held { break }
        let cancelled = Task { try await gate.whileStarting { "should not run" } }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        leaveSink.yield()
        try await holder.value
        let again = try await gate.whileStarting { "the permit came back" }
        #expect(again == "the permit came back")
    }
}
