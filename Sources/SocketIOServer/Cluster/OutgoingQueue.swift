import DequeModule
import NIOConcurrencyHelpers

/// The messages a namespace's cluster adapter has yet to publish, in order: one consumer takes
/// what accumulated, up to a batch, while the previous publish was under way.
final class OutgoingQueue<Item: Sendable>: Sendable {
    private struct State {
        var items = Deque<Item>()
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    /// Appends `item` unless the queue is closed; `false` then.
    func push(_ item: Item) -> Bool {
        let (accepted, waiter) = state.withLockedValue { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard !state.closed else { return (false, nil) }
            state.items.append(item)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return accepted
    }

    /// Up to `limit` items, oldest first, once there is one; `nil` once closed and empty.
    func next(max limit: Int) async -> [Item]? {
        while true {
            let taken: [Item]?? = state.withLockedValue { state in
                if !state.items.isEmpty {
                    let count = min(limit, state.items.count)
                    defer { state.items.removeFirst(count) }
                    return .some(Array(state.items.prefix(count)))
                }
                return state.closed ? .some(nil) : .none
            }
            if let taken { return taken }
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> Bool in
                    guard state.items.isEmpty, !state.closed else { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// No more items are accepted; the consumer gets what is queued, then `nil`. Returns the
    /// items still queued when `dropping` (to fail them).
    func close(dropping: Bool) -> [Item] {
        let (dropped, waiter) = state.withLockedValue { state -> ([Item], CheckedContinuation<Void, Never>?) in
            state.closed = true
            defer {
                state.waiter = nil
                if dropping { state.items.removeAll() }
            }
            return (dropping && !state.items.isEmpty ? Array(state.items) : [], state.waiter)
        }
        waiter?.resume()
        return dropped
    }
}
