import SwitchboardCore
import SocketIOProtocol

extension DriverConnectionStateMachine {
    // MARK: - Sends

    /// A `send`: whether it may skip the queue (connected, nothing older waiting).
    func sendDirectly() throws(ConnectionError) -> Bool {
        _ = try lifecycle.command(.send)
        return canExecuteDirectly
    }

    /// Queues send `id`; `true` when the caller starts a flush.
    mutating func enqueueSend(_ id: UInt64, _ event: String, _ payload: JSONValue, waiter: Waiter) throws(ConnectionError) -> Bool {
        _ = try lifecycle.command(.send)
        try enqueue(.send(event, payload, waiter), id: id)
        return claimFlush()
    }

    /// A queued send's caller gave up: its waiter, to resume with `cancelled` (`nil` once it left the queue).
    mutating func cancelSend(_ id: UInt64) -> Waiter? {
        guard case .send(_, _, let waiter)? = removeQueued(id) else { return nil }
        return waiter
    }

    // MARK: - Requests

    /// How a new request starts.
    enum RequestStart: Sendable {
        /// Hand it to the driver now.
        case direct(DriverRequest)
        /// Queued; `flush` when the caller starts a flush.
        case queued(flush: Bool)
        /// Its deadline passed already.
        case expired(ConnectionError)
    }

    /// `request`: registered as `id`, handed to the driver at once when it may skip the queue.
    mutating func request(_ id: UInt64, _ request: PendingRequest) throws(ConnectionError) -> RequestStart {
        _ = try lifecycle.command(.request)
        if canExecuteDirectly {
            requests[id] = request
            return claim(id)
        }
        try enqueue(.request, id: id)
        requests[id] = request
        return .queued(flush: claimFlush())
    }

    /// Marks request `id` handed to the driver, with what is left of its deadline.
    private mutating func claim(_ id: UInt64) -> RequestStart {
        guard var request = requests[id] else { return .queued(flush: false) }
        let remaining = request.timeout - request.stopwatch.now()
        guard remaining > .zero else {
            requests.removeValue(forKey: id)
            return .expired(.timedOut(event: request.event, after: request.timeout))
        }
        request.inFlight = true
        requests[id] = request
        return .direct(DriverRequest(id: id, event: request.event, payload: request.payload, timeout: request.timeout, remaining: remaining))
    }

    /// The owner handed request `id` to the driver; `end` ends the driver's part: `false` when
    /// the request ended meanwhile (call `end`).
    mutating func requestStarted(_ id: UInt64, end: @escaping @Sendable () -> Void) -> Bool {
        guard requests[id] != nil else { return false }
        requests[id]?.endDriverRequest = end
        return true
    }

    /// Request `id` ended (answered, failed, expired, cancelled): what was kept for it, whose
    /// driver part to end (`nil` when it had ended already).
    mutating func finishRequest(_ id: UInt64) -> PendingRequest? {
        guard let request = requests.removeValue(forKey: id) else { return nil }
        _ = removeQueued(id)
        return request
    }

    // MARK: - Flush

    /// One step of the flush.
    enum FlushStep: Sendable {
        /// Nothing (more) to run now; the flush ends.
        case done
        case send(id: UInt64, String, JSONValue, Waiter)
        /// A request to hand to the driver; the flush waits for its answer.
        case request(DriverRequest)
        /// A request whose deadline passed while queued: answer it, then go on.
        case expired(id: UInt64, ConnectionError)
    }

    /// The next queued command, oldest first, while connected.
    mutating func nextFlushStep() -> FlushStep {
        guard case .connected = lifecycle.state, let (id, command) = popQueued() else {
            flushing = false
            return .done
        }
        switch command {
        case .send(let event, let payload, let waiter):
            return .send(id: id, event, payload, waiter)
        case .request:
            switch claim(id) {
            case .direct(let request): return .request(request)
            case .expired(let error): return .expired(id: id, error)
            case .queued: return nextFlushStep()  // ended meanwhile
            }
        }
    }

    /// The transport refused the flush's send `id` (it dropped under the flush): first in line
    /// for the next connection; the flush ends. Once released (the release failed only what was
    /// still queued), no connection comes: `waiter` is handed back, to hear
    /// ``ConnectionError/released``.
    mutating func sendRefused(_ id: UInt64, _ event: String, _ payload: JSONValue, waiter: Waiter) -> Waiter? {
        flushing = false
        if case .released = lifecycle.state { return waiter }
        queue.putBack(.send(event, payload, waiter), id: id)
        queueObservers.yield(queue.count)
        return nil
    }

    // MARK: - The queue

    /// Whether a new command may skip the queue: connected and nothing older waiting.
    private var canExecuteDirectly: Bool {
        guard case .connected = lifecycle.state else { return false }
        return queue.isEmpty && !flushing
    }

    /// Whether the caller should start a flush: connected, something queued, none running.
    mutating func claimFlush() -> Bool {
        guard case .connected = lifecycle.state, !flushing, !queue.isEmpty else { return false }
        flushing = true
        return true
    }

    // Queue observers hear every change, yielded here so they see counts in order.

    private mutating func enqueue(_ command: QueuedCommand, id: UInt64) throws(ConnectionError) {
        try queue.enqueue(command, id: id)
        queueObservers.yield(queue.count)
    }

    private mutating func popQueued() -> (id: UInt64, command: QueuedCommand)? {
        let next = queue.popFirst()
        if next != nil { queueObservers.yield(queue.count) }
        return next
    }

    private mutating func removeQueued(_ id: UInt64) -> QueuedCommand? {
        let command = queue.remove(id)
        if command != nil { queueObservers.yield(queue.count) }
        return command
    }
}
