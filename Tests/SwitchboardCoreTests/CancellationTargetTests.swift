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

    @Test func aRealTaskCancelledWhileTheOperationRegistersCancelsItOnce() async {
        // Each iteration races the registration against the cancellation; whichever order
        // happens, the value is cancelled exactly once. The operation stays until the task is
        // cancelled, so the cancellation always falls within it.
        for _ in 0..<200 {
            let target = CancellationTarget<Int>()
            let cancelled = Counter()
            let task = Task {
                await withTaskCancellationHandler {
                    await Task.yield()
                    if target.register(1) { cancelled.add() }
                    while !Task.isCancelled { await Task.yield() }
                } onCancel: {
                    if target.cancel() != nil { cancelled.add() }
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
