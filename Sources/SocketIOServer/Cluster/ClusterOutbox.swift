import DequeModule

/// The messages a namespace's cluster adapter has yet to publish, numbered and in order, and who
/// waits for each: a value type inside ``ClusterState``.
///
/// One consumer (the publish loop) takes what accumulated, up to a batch, while the previous
/// publish was under way. `Waiter` is that consumer parked on an empty queue, `Caller` someone
/// awaiting one message's publish (continuations in production; opaque here, so the rules are
/// tested without tasks).
struct ClusterOutbox<Waiter, Caller> {
    /// One numbered message and who hears how its publish went.
    struct Item: Sendable {
        let message: ClusterMessage
        /// Its number (also `message.sequence`).
        let sequence: UInt64
        /// When it was made: it fails ``ClusterOptions/publishTimeout`` after this.
        let madeAt: Duration
        let awaiting: Awaiting

        /// Whether it is past its publish timeout at `now`.
        func isExpired(at now: Duration, timeout: Duration) -> Bool {
            now - madeAt >= timeout
        }
    }

    /// Who is told when a message could not be published.
    enum Awaiting: Sendable, Equatable {
        /// Nobody: a failure is counted and logged.
        case nobody
        /// A caller of `publishAwaiting`, kept by the message's number (told of success too).
        case caller
        /// Request `id` (`fetchSockets`, `serverSideEmitWithAck`): nobody will answer it.
        case request(String)
    }

    /// The last number given to a message.
    private(set) var lastSequence: UInt64 = 0
    /// When the last message was made (the heartbeat is due a heartbeat interval after it).
    private(set) var lastMadeAt: Duration = .zero
    private var items = Deque<Item>()
    /// The consumer, parked while the queue is empty.
    private var consumer: Waiter?
    /// Callers awaiting their message's publish, by its number; each is taken out once, by
    /// whichever comes first: the publish, its failure, its caller's own deadline, the close.
    private var callers: [UInt64: Caller] = [:]
    private(set) var closed = false
    /// Why pushes are refused while no consumer will come (``suspend(_:)``).
    private var suspended: ClusterError?

    /// Why a push would be refused now, if it would.
    var refusal: ClusterError? { closed ? .closed : suspended }

    /// What ``push(_:at:awaiting:caller:)`` did.
    enum Push {
        /// Queued as number `sequence`; wake `consumer` if set.
        case queued(sequence: UInt64, wake: Waiter?)
        /// Nothing was queued: the outbox is closed (``ClusterError/closed``) or suspended.
        case refused(ClusterError)
    }

    /// Numbers `message` and queues it after everything before it.
    mutating func push(_ message: ClusterMessage, at now: Duration, awaiting: Awaiting, caller: Caller? = nil) -> Push {
        if let refusal { return .refused(refusal) }
        lastSequence += 1
        // Clocks are read before the lock; keep the heartbeat's reference from going back.
        lastMadeAt = max(lastMadeAt, now)
        var numbered = message
        numbered.sequence = lastSequence
        items.append(Item(message: numbered, sequence: lastSequence, madeAt: now, awaiting: awaiting))
        if let caller { callers[lastSequence] = caller }
        defer { consumer = nil }
        return .queued(sequence: lastSequence, wake: consumer)
    }

    enum Take {
        /// Up to the limit, oldest first.
        case batch([Item])
        /// Nothing yet: park with ``wait(_:)``.
        case empty
        /// Closed and drained: the consumer stops.
        case finished
    }

    /// The consumer takes up to `limit` messages.
    mutating func take(max limit: Int) -> Take {
        guard items.isEmpty else {
            let count = min(limit, items.count)
            defer { items.removeFirst(count) }
            return .batch(Array(items.prefix(count)))
        }
        return closed ? .finished : .empty
    }

    /// Parks the consumer; `false` when it should not wait (messages came, or the outbox closed).
    mutating func wait(_ waiter: Waiter) -> Bool {
        guard items.isEmpty, !closed else { return false }
        consumer = waiter
        return true
    }

    /// Takes the caller awaiting message `sequence`, if it still waits.
    mutating func takeCaller(_ sequence: UInt64) -> Caller? {
        callers.removeValue(forKey: sequence)
    }

    /// No consumer will come until ``resume()`` (its owner's start failed): pushes are refused
    /// with `error`, and what is queued is taken out, unpublished (their callers stay, for the
    /// owner to tell).
    mutating func suspend(_ error: ClusterError) -> [Item] {
        suspended = error
        defer { items.removeAll() }
        return Array(items)
    }

    /// Pushes are queued again.
    mutating func resume() {
        suspended = nil
    }

    /// Closes the outbox: the queued messages are dropped (their callers to be told), the
    /// consumer woken to find it finished. Callers of messages being published stay: the
    /// publish's outcome tells them.
    mutating func close() -> (dropped: [Item], callers: [Caller], wake: Waiter?) {
        closed = true
        let dropped = Array(items)
        items.removeAll()
        let told = dropped.compactMap { callers.removeValue(forKey: $0.sequence) }
        defer { consumer = nil }
        return (dropped, told, consumer)
    }
}

extension ClusterOutbox: Sendable where Waiter: Sendable, Caller: Sendable {}
