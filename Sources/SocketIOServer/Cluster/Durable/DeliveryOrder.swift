import NIOConcurrencyHelpers
import SwitchboardCore

/// The order in which a namespace whose sessions are kept in the cluster delivers numbered
/// events, and its ``ClusterFrontier``.
///
/// Every numbered event — this server's (numbered as it is queued for the cluster) and the
/// other servers' — is delivered to the local sockets inside ``inOrder(_:)``, one at a time,
/// with the frontier advanced first: so an event's offset says exactly what its client had
/// been sent. A recovering client waits (``wait(until:within:clock:)``) until this server has
/// delivered everything its offset names.
final class DeliveryOrder: Sendable {
    private struct Waiter {
        var targets: [String: UInt64]
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var frontier = ClusterFrontier()
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        var unnumbered: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `body` (advance the frontier, then deliver) alone, and wakes the waiters it
    /// satisfied afterwards.
    func inOrder<T>(_ body: (inout ClusterFrontier) -> T) -> T {
        let (result, woken) = state.withLockedValue { state -> (T, [CheckedContinuation<Bool, Never>]) in
            let result = body(&state.frontier)
            guard !state.waiters.isEmpty else { return (result, []) }
            var woken: [CheckedContinuation<Bool, Never>] = []
            for (id, waiter) in state.waiters where state.frontier.reaches(waiter.targets) {
                woken.append(waiter.continuation)
                state.waiters.removeValue(forKey: id)
            }
            return (result, woken)
        }
        for continuation in woken { continuation.resume(returning: true) }
        return result
    }

    /// An offset for an event that is not numbered (a `local` broadcast): the frontier and a
    /// counter, unique in this namespace.
    func unnumberedOffset() -> String {
        state.withLockedValue { state in
            state.unnumbered += 1
            return state.frontier.offset + "!" + String(state.unnumbered, radix: 36)
        }
    }

    /// The frontier now.
    var frontier: ClusterFrontier { state.withLockedValue { $0.frontier } }

    /// Returns `true` once the frontier reaches `targets`, `false` if `limit` passes first.
    func wait(until targets: [String: UInt64], within limit: Duration, clock: Timeline) async -> Bool {
        await withCheckedContinuation { continuation in
            let id = state.withLockedValue { state -> Int? in
                guard !state.frontier.reaches(targets) else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = Waiter(targets: targets, continuation: continuation)
                return state.nextWaiter
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            _ = clock.schedule(limit) { [self] in
                let waiter = state.withLockedValue { $0.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(returning: false)
            }
        }
    }
}
