import DequeModule
import NIOConcurrencyHelpers

/// One handler at a time per channel, in the order its messages were admitted.
///
/// Each transport link has a handler task of its own, and a client that moves its channel to a
/// new link while a handler still runs (an async handler awaiting something) would otherwise
/// have the next message's handler start beside it: the app would see the channel's messages
/// overlap, and their effects land out of order. A link's task takes the channel's turn before it
/// hands a message to the app and gives it back after; a task that finds the turn taken waits
/// behind whoever holds it (first come, first served: the machine admits messages in `seq`
/// order). An entry exists only while a handler runs.
final class HandlerTurns: Sendable {
    private struct Turn {
        var waiting = Deque<CheckedContinuation<Void, Never>>()
    }

    private let turns = NIOLockedValueBox<[String: Turn]>([:])

    /// Returns once channel `id` is this caller's to handle. Not cancellable: a link's handler
    /// task is never cancelled, it ends when its inbox does, after the message in hand.
    func take(_ id: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = turns.withLockedValue { turns in
                guard turns[id] != nil else {
                    turns[id] = Turn()
                    return true
                }
                turns[id]?.waiting.append(continuation)
                return false
            }
            if free { continuation.resume() }
        }
    }

    /// Hands channel `id` to the next waiting task, or frees it.
    func give(_ id: String) {
        let next: CheckedContinuation<Void, Never>? = turns.withLockedValue { turns in
            guard let next = turns[id]?.waiting.popFirst() else {
                turns[id] = nil
                return nil
            }
            return next
        }
        next?.resume()
    }

    /// How many tasks wait for channel `id`'s turn (for diagnostics and tests).
    func waiting(for id: String) -> Int {
        turns.withLockedValue { $0[id]?.waiting.count ?? 0 }
    }
}
