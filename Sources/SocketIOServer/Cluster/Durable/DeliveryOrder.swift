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

    /// Where delivery stands: the frontier, and a counter for the offsets of events that are
    /// not numbered.
    struct Cursor {
        private(set) var frontier = ClusterFrontier()
        private var unnumbered: UInt64 = 0
        /// Each origin's number at the last ``forgetQuietOrigins()``, and how many calls in a
        /// row found it there.
        private var quiet: [String: (number: UInt64, calls: Int)] = [:]

        /// How many calls of ``forgetQuietOrigins()`` in a row must find an origin where it was
        /// before it is forgotten.
        static let quietCallsToForget = 2

        /// Notes message `sequence` of origin `uid` as delivered.
        mutating func advance(_ uid: String, to sequence: UInt64) {
            frontier.advance(uid, to: sequence)
        }

        /// Starts from `horizon` (origin tags and numbers): what was numbered up to there, before
        /// this server listened, will never be delivered here, and no socket here needs it.
        mutating func start(from horizon: [String: UInt64]) {
            frontier = frontier.merged(with: ClusterFrontier(seen: horizon))
        }

        /// Forgets the origins that did not move since the last ``quietCallsToForget`` calls:
        /// called once per recovery window, it leaves out of the frontier, and so out of every
        /// offset, an origin silent for more than two windows (a server gone: a live one numbers
        /// its heartbeats). None of its messages can be replayed any more (the journal is read
        /// within one window), and one it numbers later brings it back. Without this, every
        /// server that ever published here would lengthen every offset for as long as this
        /// server runs. Returns the tags forgotten.
        @discardableResult
        mutating func forgetQuietOrigins() -> [String] {
            var forgotten: [String] = []
            var next: [String: (number: UInt64, calls: Int)] = [:]
            for (tag, number) in frontier.seen {
                guard let last = quiet[tag], last.number == number else {
                    next[tag] = (number, 0)
                    continue
                }
                if last.calls + 1 >= Self.quietCallsToForget {
                    forgotten.append(tag)
                } else {
                    next[tag] = (number, last.calls + 1)
                }
            }
            for tag in forgotten { frontier.forget(tag) }
            quiet = next
            return forgotten.sorted()
        }

        /// The offset of the event being delivered: the frontier when it was numbered (and the
        /// frontier advanced to it), otherwise the frontier and a counter (a `local`
        /// broadcast, or an emit while the adapter is closing), unique in this namespace.
        mutating func offset(numbered: Bool) -> String {
            guard !numbered else { return frontier.offset }
            unnumbered += 1
            return frontier.offset + "!" + String(unnumbered, radix: 36)
        }
    }

    private struct State {
        var cursor = Cursor()
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `body` (advance the frontier, then deliver) alone, and wakes the waiters it
    /// satisfied afterwards.
    /// Nothing in `body` may call back into this order (its lock is held): it queues frames and
    /// hands back the writes to start after (``BroadcastOperator/queueLocally(_:items:numberedOffset:)``).
    func inOrder<T>(_ body: (inout Cursor) -> T) -> T {
        let (result, woken) = state.withLockedValue { state -> (T, [CheckedContinuation<Bool, Never>]) in
            let result = body(&state.cursor)
            guard !state.waiters.isEmpty else { return (result, []) }
            var woken: [CheckedContinuation<Bool, Never>] = []
            for (id, waiter) in state.waiters where state.cursor.frontier.reaches(waiter.targets) {
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
        state.withLockedValue { $0.cursor.offset(numbered: false) }
    }

    /// The frontier now.
    var frontier: ClusterFrontier { state.withLockedValue { $0.cursor.frontier } }

    /// Returns `true` once the frontier reaches `targets`, `false` if `limit` passes first.
    func wait(until targets: [String: UInt64], within limit: Duration, clock: Timeline) async -> Bool {
        await withCheckedContinuation { continuation in
            let id = state.withLockedValue { state -> Int? in
                guard !state.cursor.frontier.reaches(targets) else { return nil }
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
