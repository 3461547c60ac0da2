import NIOConcurrencyHelpers
import SwitchboardCore

/// One cancellable timer per kind, on the injected clock's timeline (the event loops' timers with
/// the real clock, a sleeping task with a test clock).
///
/// Re-arming a kind cancels its previous timer. Timers are armed when state changes (a ping, a
/// pong, an upgrade), never per packet. A timer that fires frees its slot, so kinds that are
/// many (a socket id per kept session) do not pile up after their timers ran.
final class TimerSlots<Kind: Hashable & Sendable>: Sendable {
    /// An armed timer; its generation tells it from a later one of the same kind.
    private struct Slot: Sendable {
        var generation: UInt64
        /// What cancels it; `nil` until the clock has scheduled it.
        var cancel: (@Sendable () -> Void)?
    }

    private struct State: Sendable {
        var slots: [Kind: Slot] = [:]
        var lastGeneration: UInt64 = 0
    }

    private let clock: Timeline
    private let state = NIOLockedValueBox(State())

    init(clock: Timeline) {
        self.clock = clock
    }

    /// Runs `fire` after `delay` unless `kind` is re-armed or cancelled first.
    func arm(_ kind: Kind, after delay: Duration, _ fire: @escaping @Sendable () -> Void) {
        let (generation, previous) = state.withLockedValue { state in
            state.lastGeneration += 1
            let previous = state.slots.updateValue(Slot(generation: state.lastGeneration), forKey: kind)
            return (state.lastGeneration, previous?.cancel)
        }
        previous?()
        let cancel = clock.schedule(delay) { [self] in
            // The slot is freed before `fire` runs, so `fire` may arm its kind again.
            guard fired(kind, generation) else { return }
            fire()
        }
        // Fired already, or re-armed or cancelled while it was being scheduled: not kept.
        let stored = state.withLockedValue { state in
            guard state.slots[kind]?.generation == generation else { return false }
            state.slots[kind]?.cancel = cancel
            return true
        }
        if !stored { cancel() }
    }

    func cancel(_ kind: Kind) {
        state.withLockedValue { $0.slots.removeValue(forKey: kind) }?.cancel?()
    }

    /// How many timers are armed.
    var count: Int { state.withLockedValue { $0.slots.count } }

    func cancelAll() {
        let all = state.withLockedValue { state in
            defer { state.slots.removeAll() }
            return state.slots.values.compactMap(\.cancel)
        }
        for cancel in all { cancel() }
    }

    /// Timer `generation` of `kind` fired: frees its slot; `false` when it was re-armed or
    /// cancelled meanwhile (it must not run).
    private func fired(_ kind: Kind, _ generation: UInt64) -> Bool {
        state.withLockedValue { state in
            guard state.slots[kind]?.generation == generation else { return false }
            state.slots.removeValue(forKey: kind)
            return true
        }
    }
}
