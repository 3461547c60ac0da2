import NIOConcurrencyHelpers
import SwitchboardCore
import Testing

/// Exactly one side sees a cancellation: the registration when it came first, the handler after.
@Suite struct CancellationTargetTests {
    @Test func aCancellationAfterTheRegistrationHandsTheValueToTheHandler() {
        let target = CancellationTarget<Int>()
        #expect(target.register(7) == false, "not cancelled yet: the operation goes on")
        #expect(target.cancel() == 7)
    }

    @Test func aCancellationBeforeTheRegistrationIsReportedByTheRegistration() {
        let target = CancellationTarget<Int>()
        #expect(target.cancel() == nil, "nothing to cancel yet")
        #expect(target.register(7) == true, "the operation cancels its value itself")
    }

    // A side that missed the cancellation would leave the task waiting: the time limit fails it.
    @Test(.timeLimit(.minutes(1)))
    func aRealTaskCancelledWhileTheOperationRegistersCancelsItOnce() async {
        // Each iteration races the registration against the cancellation; whichever order
        // happens, the value is cancelled exactly once. As in the library, the operation waits
        // until its value is cancelled (here, a continuation resumed by whichever side sees the
        // cancellation), so the cancellation always falls within it. (An operation that ended on
        // its own by polling `Task.isCancelled` could see the flag and return before the handler
        // ran; once, under TSan, neither side then counted.)
        for _ in 0..<200 {
            let target = CancellationTarget<CheckedContinuation<Void, Never>>()
            let cancelled = Counter()
            let task = Task {
                await withTaskCancellationHandler {
                    await Task.yield()
                    await withCheckedContinuation { continuation in
                        if target.register(continuation) {
                            cancelled.add()
                            continuation.resume()
                        }
                    }
                } onCancel: {
                    if let continuation = target.cancel() {
                        cancelled.add()
                        continuation.resume()
                    }
                }
            }
            task.cancel()
            await task.value
            #expect(cancelled.value == 1)
        }
    }

    final class Counter: Sendable {
        private let count = NIOLockedValueBox(0)
        func add() { count.withLockedValue { $0 += 1 } }
        var value: Int { count.withLockedValue { $0 } }
    }
}
