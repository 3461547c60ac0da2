import NIOConcurrencyHelpers
import NIOCore

/// Hands a manager's handler work to its ``HandlerExecutor`` one burst at a time: everything
/// that arrives while a hand-over is pending goes with it, and the hand-over runs on the
/// manager's event loop after what that loop is processing now (the frames of one read). So the
/// events of one read cost one thread hop, not one each — the default executor's queue otherwise
/// woke a thread per event. Order holds: batches are handed over in order, from the loop.
final class HandlerBursts: Sendable {
    private let executor: HandlerExecutor
    private let eventLoop: any EventLoop
    private let pending = NIOLockedValueBox(Batch())

    private struct Batch {
        var work: [@Sendable () -> Void] = []
        var handOverScheduled = false
    }

    init(executor: HandlerExecutor, eventLoop: any EventLoop) {
        self.executor = executor
        self.eventLoop = eventLoop
    }

    /// Runs `work` on the executor after everything given before (at once for ``HandlerExecutor/inline``).
    func run(_ work: @escaping @Sendable () -> Void) {
        guard !executor.runsInline else { return work() }
        let schedule = pending.withLockedValue { batch -> Bool in
            batch.work.append(work)
            guard !batch.handOverScheduled else { return false }
            batch.handOverScheduled = true
            return true
        }
        guard schedule else { return }
        // On the loop (a read in progress) this runs once the read is processed; from another
        // thread it wakes the loop once for the whole burst.
        eventLoop.execute { self.handOver() }
    }

    /// Returns once the work given before, and what the loop is handing over now (the events of
    /// the read it is processing), ran; or at once when the calling task is cancelled.
    func drained() async {
        let waiter = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let resume: @Sendable () -> Void = { waiter.withLockedValue { $0.take() }?.resume() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { done in
                waiter.withLockedValue { $0 = done }
                if Task.isCancelled {
                    resume()
                    return
                }
                // From the loop: after the read it is processing handed its events over.
                eventLoop.execute { self.run(resume) }
            }
        } onCancel: {
            resume()
        }
    }

    private func handOver() {
        let work = pending.withLockedValue { batch in
            defer { batch = Batch() }
            return batch.work
        }
        if work.count == 1, let only = work.first {
            executor.run(only)
        } else {
            executor.run { for item in work { item() } }
        }
    }
}
