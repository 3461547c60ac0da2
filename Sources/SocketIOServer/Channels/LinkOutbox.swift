/// What waits to be written to one transport link, in the order the transitions queued it, and
/// whether a caller is writing it out now.
///
/// Writing happens outside the owner's lock, so two callers that queued one after the other
/// could otherwise write in the other order. The rule that keeps the order: whoever queues onto
/// an outbox nobody drains becomes its drainer, and takes everything queued (its own items and
/// whatever others add meanwhile) batch by batch until the outbox is empty; everyone else only
/// queues. One drainer at a time, batches taken in order, so items leave in queue order.
struct LinkOutbox<Item: Sendable>: Sendable {
    private var queued: [Item] = []
    /// Whether a caller is draining the outbox (it takes what is queued until nothing is).
    private(set) var isDraining = false

    init() {}

    /// Queues `items` after what waits; `true` when the caller is to drain the outbox (nobody
    /// does, and now there is something to write).
    mutating func append(contentsOf items: some Sequence<Item>) -> Bool {
        queued.append(contentsOf: items)
        guard !isDraining, !queued.isEmpty else { return false }
        isDraining = true
        return true
    }

    /// The drainer's next batch, oldest first; `nil` when nothing is left, and the drainer
    /// stops (the next ``append(contentsOf:)`` names a new one).
    mutating func take() -> [Item]? {
        guard !queued.isEmpty else {
            isDraining = false
            return nil
        }
        var batch: [Item] = []
        swap(&batch, &queued)
        return batch
    }
}
