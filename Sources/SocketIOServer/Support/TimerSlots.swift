import NIOConcurrencyHelpers
import SwitchboardCore

/// One cancellable timer per kind, each a task sleeping on the injected clock.
///
/// Re-arming a kind cancels its previous task. Timers are armed when state changes (a ping, a
/// pong, an upgrade), never per packet.
final class TimerSlots<Kind: Hashable & Sendable>: Sendable {
    private let clock: Timeline
    private let tasks = NIOLockedValueBox<[Kind: Task<Void, Never>]>([:])

    init(clock: Timeline) {
        self.clock = clock
    }

    /// Runs `fire` after `delay` unless `kind` is re-armed or cancelled first.
    func arm(_ kind: Kind, after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
        let clock = self.clock
        let task = Task {
            do {
                try await clock.sleep(delay)
            } catch {
                return
            }
            fire()
        }
        let previous = tasks.withLockedValue { tasks in
            defer { tasks[kind] = task }
            return tasks[kind]
        }
        previous?.cancel()
    }

    func cancel(_ kind: Kind) {
        tasks.withLockedValue { $0.removeValue(forKey: kind) }?.cancel()
    }

    func cancelAll() {
        let all = tasks.withLockedValue { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in all { task.cancel() }
    }
}
