import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@testable import SocketIO
import SwitchboardTestSupport
import Testing

/// The events of one read reach the handler executor as one piece of work, in order.
@Suite("Handler bursts")
struct HandlerBurstsTests {
    /// An executor on a serial queue that counts the pieces of work it was given.
    final class CountingExecutor: Sendable {
        let jobs = NIOLockedValueBox(0)
        let queue = DispatchQueue(label: "test.handlers")
        var executor: HandlerExecutor {
            HandlerExecutor { work in
                self.jobs.withLockedValue { $0 += 1 }
                self.queue.async(execute: work)
            }
        }
    }

    @Test func whatArrivesInOneTurnOfTheLoopIsOneHopInOrder() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let counting = CountingExecutor()
        let bursts = HandlerBursts(executor: counting.executor, eventLoop: loop)
        let seen = NIOLockedValueBox<[Int]>([])
        let (done, finished) = AsyncStream<Void>.makeStream()
        // As a read does: 100 events handed over from the loop within one of its turns.
        loop.execute {
            for i in 0..<100 {
                bursts.run {
                    let count = seen.withLockedValue { $0.append(i); return $0.count }
                    if count == 100 { finished.yield() }
                }
            }
        }
        _ = try await done.first(1, within: 10, "100 handlers")
        #expect(seen.withLockedValue { $0 } == Array(0..<100))
        #expect(counting.jobs.withLockedValue { $0 } == 1, "one hop for the burst")
    }

    @Test func workFromOtherThreadsKeepsItsOrderAcrossBursts() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let counting = CountingExecutor()
        let bursts = HandlerBursts(executor: counting.executor, eventLoop: loop)
        let seen = NIOLockedValueBox<[Int]>([])
        let (done, finished) = AsyncStream<Void>.makeStream()
        let total = 5_000
        // One producer off the loop, interleaved with bursts on it: one order, the calls' order.
        let next = NIOLockedValueBox(0)
        let submit: @Sendable () -> Void = {
            next.withLockedValue { value in
                let i = value
                value += 1
                bursts.run {
                    let count = seen.withLockedValue { $0.append(i); return $0.count }
                    if count == total { finished.yield() }
                }
            }
        }
        DispatchQueue.global().async {
            for round in 0..<(total / 10) {
                if round % 2 == 0 {
                    for _ in 0..<10 { submit() }
                } else {
                    loop.execute { for _ in 0..<10 { submit() } }
                }
            }
        }
        _ = try await done.first(1, within: 20, "every handler")
        #expect(seen.withLockedValue { $0 } == Array(0..<total))
        #expect(counting.jobs.withLockedValue { $0 } < total, "bursts are batched")
    }

    @Test func inlineHandlersRunAtOnce() {
        let bursts = HandlerBursts(executor: .inline, eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let ran = NIOLockedValueBox(false)
        bursts.run { ran.withLockedValue { $0 = true } }
        #expect(ran.withLockedValue { $0 }, "inline is not deferred")
    }

    /// `drained()` waits behind what the executor holds, but not past its caller's cancellation
    /// (a cancelled `connect()` of a recovered session must not stay behind a stuck handler).
    @Test func aCancelledDrainReturnsWhileTheExecutorIsHeld() async throws {
        let bursts = HandlerBursts(executor: .serial(label: "test.drain"), eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let release = await holdExecutor { bursts.run($0) }
        defer { release() }
        let drain = Task { await bursts.drained() }
        drain.cancel()
        try await withTimeout(10, "the cancelled drain") { await drain.value }
        let ranAfter = NIOLockedValueBox(false)
        bursts.run { ranAfter.withLockedValue { $0 = true } }
        #expect(!ranAfter.withLockedValue { $0 }, "the executor is still held: the drain returned on its cancellation")
    }
}
