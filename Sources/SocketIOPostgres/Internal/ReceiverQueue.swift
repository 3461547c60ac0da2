import DequeModule

/// What a namespace's receiver does with each notification, in order: a value type the
/// receiver keeps under its lock.
///
/// A message carried in the notification is delivered where it arrives (the connection's event
/// loop), without a hop, as long as nothing is queued. A notification that names an attachment
/// needs a query, so it starts the queue: it and everything after it wait for one drain task,
/// which fetches and delivers them in turn; so does everything during a journal catch-up. A
/// large message never overtakes the small one published before it, nor the reverse.
struct ReceiverQueue<Item> {
    private var pending = Deque<Item>()
    /// The drain task (or the catch-up) runs: every arrival queues behind it.
    private var draining = false
    private(set) var stopped = false

    enum Arrival: Equatable {
        /// Deliver it now, here.
        case deliver
        /// Queued behind what is pending.
        case queued
        /// Queued first: start the drain task.
        case startDrain
        /// The receiver stopped: dropped.
        case dropped
    }

    /// A notification arrived; `immediate` when it can be delivered without a query.
    mutating func arrived(_ item: Item, immediate: Bool) -> Arrival {
        guard !stopped else { return .dropped }
        if !draining, immediate { return .deliver }
        pending.append(item)
        guard !draining else { return .queued }
        draining = true
        return .startDrain
    }

    /// A catch-up begins: arrivals queue until ``next()`` finds the queue empty.
    mutating func beginCatchUp() {
        draining = true
    }

    /// The drain task's next item; `nil` (the task ends) once the queue is empty or stopped.
    mutating func next() -> Item? {
        guard !stopped, let item = pending.popFirst() else {
            draining = false
            pending.removeAll()
            return nil
        }
        return item
    }

    /// Stops delivering: what is queued is dropped.
    mutating func stop() {
        stopped = true
        pending.removeAll()
    }
}

extension ReceiverQueue: Sendable where Item: Sendable {}
