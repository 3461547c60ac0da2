import SocketIOProtocol

/// The link that carries a failover channel, and what waits to be written on it: one writer at
/// a time writes, in order, outside the channel's lock (whoever queued into an idle outbox
/// becomes the writer and keeps writing until the outbox is empty), so sequence numbers reach
/// the link in the order they were given without a write under the lock.
struct FailoverLinkOutbox<Link: Sendable>: Sendable {
    /// The link's generation (reports and writers of another are stale).
    let generation: Int
    let link: Link
    private(set) var queued: [Envelope] = []
    /// Someone is writing: later envelopes join ``queued`` for that writer.
    private(set) var writing = false

    /// Envelopes to write on `link` in this order. Whoever gets one is the link's writer until
    /// ``FailoverLinkOutbox/written()`` returns `nil`.
    struct Batch: Sendable {
        let link: Link
        let generation: Int
        let envelopes: [Envelope]
    }

    init(generation: Int, link: Link) {
        self.generation = generation
        self.link = link
    }

    /// Queues `envelopes`; returns them when the caller becomes the writer (nobody writes now).
    mutating func enqueue(_ envelopes: [Envelope]) -> Batch? {
        guard !envelopes.isEmpty else { return nil }
        guard !writing else {
            queued += envelopes
            return nil
        }
        writing = true  // nothing is queued: the last writer took all of it
        return Batch(link: link, generation: generation, envelopes: envelopes)
    }

    /// The writer wrote its batch: the next one, or `nil` (it is no longer the writer).
    mutating func written() -> Batch? {
        guard writing else { return nil }
        guard !queued.isEmpty else {
            writing = false
            return nil
        }
        defer { queued = [] }
        return Batch(link: link, generation: generation, envelopes: queued)
    }
}
