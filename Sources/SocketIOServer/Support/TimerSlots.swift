import NIOConcurrencyHelpers
import SwitchboardCore

/// One cancellable timer per kind, on the injected clock's timeline (the event loops' timers with
/// the real clock, a sleeping task with a test clock).
///
/// Re-arming a kind cancels its previous timer. Timers are armed when state changes (a ping, a
/// pong, an upgrade), never per packet.
final class TimerSlots<Kind: Hashable & Sendable>: Sendable {
    private let clock: Timeline
    private let tasks = NIOLockedValueBox<[Kind: @Sendable () -> Void]>([:])

    init(clock: Timeline) {
        self.clock = clock
    }

    /// Runs `fire` after `delay` unless `kind` is re-armed or cancelled first.
    func arm(_ kind: Kind, after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
        let cancel = clock.schedule(delay, fire)
        let previous = tasks.withLockedValue { tasks in
            defer { tasks[kind] = cancel }
            return tasks[kind]
        }
        previous?()
    }

    func cancel(_ kind: Kind) {
        tasks.withLockedValue { $0.removeValue(forKey: kind) }?()
    }

    func cancelAll() {
        let all = tasks.withLockedValue { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for cancel in all { cancel() }
    }
}
