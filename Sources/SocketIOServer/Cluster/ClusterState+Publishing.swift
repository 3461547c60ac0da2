import SocketIOProtocol

/// Publishing: numbering and queueing, the publish loop's batches and their outcome, the
/// heartbeat, and the requests whose message goes out with them.
extension ClusterState {
    typealias Item = ClusterOutbox<Waiter, Caller>.Item

    /// Queues `message` (numbered here, after everything queued before it). `caller` awaits its
    /// publish, when set; a refused push (closed, or its start failed) leaves telling it to the
    /// owner, and one refused after a failed start that nobody awaits is counted in ``failures``.
    mutating func enqueue(_ message: ClusterMessage, at now: Duration, caller: Caller? = nil) -> ClusterOutbox<Waiter, Caller>.Push {
        let push = outbox.push(message, at: now, awaiting: caller == nil ? .nobody : .caller, caller: caller)
        if caller == nil, case .refused(.publishFailed) = push { failures += 1 }
        return push
    }

    /// The caller awaiting message `sequence` gave up waiting (its own deadline): it is told by
    /// the owner, not by the publish.
    mutating func abandon(_ sequence: UInt64) -> Caller? {
        outbox.takeCaller(sequence)
    }

    /// The publish loop asks for its next batch.
    mutating func takeOutgoing(max limit: Int) -> ClusterOutbox<Waiter, Caller>.Take {
        outbox.take(max: limit)
    }

    /// The publish loop parks until there is something to publish; `false` when it should look
    /// again at once.
    mutating func waitForOutgoing(_ waiter: Waiter) -> Bool {
        outbox.wait(waiter)
    }

    /// `batch` was handed to the transport: its callers hear of it.
    mutating func published(_ batch: [Item]) -> Effects {
        var effects = Effects()
        for item in batch {
            if let caller = outbox.takeCaller(item.sequence) { effects.callers.append((caller, .success(()))) }
        }
        return effects
    }

    /// Publishing `batch` failed at `now` with `reason`. Those past the publish timeout (all of
    /// them when `giveUp`: the adapter is closing) fail; the rest are returned, to be retried.
    mutating func publishFailed(_ batch: [Item], at now: Duration, giveUp: Bool, reason: String) -> (retry: [Item], effects: Effects) {
        var retry: [Item] = []
        var expired: [Item] = []
        for item in batch {
            if giveUp || item.isExpired(at: now, timeout: options.publishTimeout) {
                expired.append(item)
            } else {
                retry.append(item)
            }
        }
        return (retry, unpublished(expired, reason: reason))
    }

    /// `items` will not be published: a caller is told, a request fails (nobody will answer
    /// it), a message nobody awaited is counted and logged.
    mutating func unpublished(_ items: [Item], reason: String) -> Effects {
        var effects = Effects()
        for item in items {
            switch item.awaiting {
            case .nobody:
                failures += 1
                effects.unpublished.append((item.message.type, reason))
            case .caller:
                if let caller = outbox.takeCaller(item.sequence) { effects.callers.append((caller, .failure(.publishFailed(reason)))) }
            case .request(let id):
                if let completion = requests.fail(id, .publishFailed(reason)) { effects.completions.append(completion) }
            }
        }
        return effects
    }

    enum Heartbeat {
        /// A heartbeat was queued: wake the publish loop (if set), then ask again.
        case published(wake: Waiter?)
        /// Ask again after this long.
        case wait(Duration)
        /// The adapter closed.
        case stop
    }

    /// The heartbeat loop asks at `now`: a heartbeat is due a heartbeat interval after the last
    /// message was made (whatever it was), as socket.io restarts its heartbeat timer on every
    /// publish. Counting from when a publish *finished* instead skipped every second wake-up:
    /// heartbeats came every 10 s, and a Node server with a timeout under 10 s forgot this one.
    mutating func heartbeat(at now: Duration) -> Heartbeat {
        guard !isClosed else { return .stop }
        let due = outbox.lastMadeAt + options.heartbeatInterval
        guard now >= due else { return .wait(due - now) }
        let beat = ClusterMessage(uid: uid, namespace: namespace, payload: .none(.heartbeat))
        switch outbox.push(beat, at: now, awaiting: .nobody) {
        case .queued(_, let wake): return .published(wake: wake)
        case .refused: return .stop
        }
    }

    enum Opening {
        /// Registered, its message queued: wake the publish loop (if set), arm the deadline.
        case opened(wake: Waiter?)
        /// No other server is known: the request is answered at once with what it has.
        case alone
        /// Closed, or its start failed: the request fails with this.
        case refused(ClusterError)
    }

    /// Opens request `id` to every known server, with `responses` of this one, and queues its
    /// `message` (both at once: its failure to publish fails the request).
    mutating func request(
        _ id: String,
        message: ClusterMessage,
        responses: [JSONValue],
        at now: Duration,
        complete: @escaping @Sendable (Result<[JSONValue], ClusterError>) -> Void
    ) -> Opening {
        if let refusal = outbox.refusal { return .refused(refusal) }
        guard !nodes.isEmpty else { return .alone }
        requests.open(id, to: Set(nodes.keys), responses: responses, complete: complete)
        switch outbox.push(message, at: now, awaiting: .request(id)) {
        case .queued(_, let wake): return .opened(wake: wake)
        case .refused(let error):  // not reached: the outbox closes with the adapter
            _ = requests.fail(id, error)
            return .refused(error)
        }
    }

    /// Request `id` is past its deadline.
    mutating func expire(_ id: String) -> ClusterRequests.Completion? {
        requests.expire(id)
    }

    /// Listens for client counts and acknowledgements of broadcast `id`; returns how many other
    /// servers are known (expected to report a count).
    mutating func listen(_ id: String, _ listener: ClusterRequests.AckListener) -> Int {
        requests.listen(id, listener)
        return nodes.count
    }

    mutating func stopListening(_ id: String) {
        requests.stopListening(id)
    }
}

extension ClusterState.Heartbeat: Equatable where Waiter: Equatable {}
