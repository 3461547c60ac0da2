import SwitchboardCore
import SocketIOProtocol

/// The commands of a ``DriverConnectionStateMachine``, as one value: the offline queue, the one
/// flush that runs it, and the requests from their call until their answer. One `mutating func`
/// per input, each returning what the owner does after its lock is released.
///
/// It knows nothing of the lifecycle but what each input is told: the attempt connected now
/// (`connected`, `nil` while not connected). The machine checks first whether the lifecycle
/// allows the command at all (not once `released`).
///
/// Queue observers hear every change of the queue, yielded here so they see counts in order.
struct CommandLane<Waiter: Sendable>: Sendable {
    typealias Attempt = ConnectionStateMachine.Attempt

    /// A command waiting in the offline queue.
    enum QueuedCommand: Sendable {
        /// A send; its caller waits on the waiter until it was handed to the driver.
        case send(String, JSONValue, Waiter)
        /// A request; its payload and deadline are in ``requests``.
        case request
    }

    /// A request from the call until its caller is answered.
    struct PendingRequest: Sendable {
        let event: String
        let payload: JSONValue
        let timeout: Duration
        let stopwatch: Timeline
        var stage = Stage.queued
        /// Ends the driver's part (cancels its task, or tells a ``CallbackRequestDriver``),
        /// called when the request ends first.
        var endDriverRequest: (@Sendable () -> Void)?

        /// Whether the driver carries it: a transport drop fails it (its reply cannot come).
        var inFlight: Bool {
            switch stage {
            case .carried: true
            case .queued, .handed: false
            }
        }
    }

    /// Where a request is between its call and its answer.
    enum Stage: Sendable, Hashable {
        /// Waiting for its turn (in the queue, or about to go straight to the driver).
        case queued
        /// Handed to the driver as its `claim`, while `attempt` was connected; the driver has not
        /// said yet whether it took it or refused it (wrote nothing).
        case handed(claim: UInt64, attempt: Attempt)
        /// The driver took it as its `claim`, over `attempt`.
        case carried(claim: UInt64, attempt: Attempt)
    }

    /// A request handed to the driver: what to send and with how much of its deadline left.
    struct DriverRequest: Sendable {
        let id: UInt64
        /// Which handing of the request this is (a refused one is handed again later).
        let claim: UInt64
        let event: String
        let payload: JSONValue
        let timeout: Duration
        let remaining: Duration
    }

    /// The flush: at most one runs the queue, so order holds.
    enum Flush: Sendable, Hashable {
        case idle
        /// Running, its last command taken `over` that attempt; `carrying` the request it handed
        /// to the driver and waits for, if any.
        case running(over: Attempt, carrying: UInt64?)
    }

    private(set) var queue: CommandQueue<QueuedCommand>
    private(set) var flush = Flush.idle
    private(set) var requests: [UInt64: PendingRequest] = [:]
    var queueObservers = ObserverSet<Int>()
    private var claims: UInt64 = 0

    /// Whether a flush is running the queue.
    var flushing: Bool {
        switch flush {
        case .idle: false
        case .running: true
        }
    }

    init(queueLimit: Int) {
        queue = CommandQueue(limit: queueLimit)
    }

    // MARK: - Sends

    /// Whether a new command may skip the queue: connected and nothing older waiting.
    func canExecuteDirectly(connected: Attempt?) -> Bool {
        connected != nil && queue.isEmpty && !flushing
    }

    /// Queues send `id`; `true` when the caller starts a flush.
    mutating func enqueueSend(
        _ id: UInt64, _ event: String, _ payload: JSONValue, waiter: Waiter, connected: Attempt?
    ) throws(ConnectionError) -> Bool {
        try enqueue(.send(event, payload, waiter), id: id)
        return claimFlush(connected: connected)
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
    mutating func request(_ id: UInt64, _ request: PendingRequest, connected: Attempt?) throws(ConnectionError) -> RequestStart {
        if let connected, canExecuteDirectly(connected: connected) {
            requests[id] = request
            return claim(id, over: connected)
        }
        try enqueue(.request, id: id)
        requests[id] = request
        return .queued(flush: claimFlush(connected: connected))
    }

    /// Marks request `id` handed to the driver over `attempt`, with what is left of its deadline.
    private mutating func claim(_ id: UInt64, over attempt: Attempt) -> RequestStart {
        guard var request = requests[id] else { return .queued(flush: false) }
        let remaining = request.timeout - request.stopwatch.now()
        guard remaining > .zero else {
            requests.removeValue(forKey: id)
            return .expired(.timedOut(event: request.event, after: request.timeout))
        }
        claims += 1
        request.stage = .handed(claim: claims, attempt: attempt)
        requests[id] = request
        return .direct(DriverRequest(
            id: id, claim: claims, event: request.event, payload: request.payload, timeout: request.timeout, remaining: remaining
        ))
    }

    /// What became of a request the driver took.
    enum Taken: Sendable {
        /// The driver carries it; its part is kept, to end if the request ends first.
        case carried
        /// It ended, or the driver refused it, meanwhile: end the driver's part.
        case gone
        /// The transport it was handed to is gone (the request may have been written to it, so
        /// it is not sent again): fail it with ``ConnectionError/connectionLost(_:)``, then end
        /// the driver's part.
        case lost(PendingRequest)
    }

    /// The driver took `request` (it did not refuse it at once); `end` ends the driver's part.
    mutating func requestStarted(_ request: DriverRequest, end: @escaping @Sendable () -> Void, connected: Attempt?) -> Taken {
        guard var pending = requests[request.id], case .handed(request.claim, let attempt) = pending.stage else { return .gone }
        guard attempt == connected else {
            requests.removeValue(forKey: request.id)
            return .lost(pending)
        }
        pending.stage = .carried(claim: request.claim, attempt: attempt)
        pending.endDriverRequest = end
        requests[request.id] = pending
        return .carried
    }

    /// What became of a request the driver refused.
    enum Refusal: Sendable, Hashable {
        /// It had ended meanwhile (answered, expired, cancelled, lost, released): nothing to do.
        case ended
        /// Back in the queue, ahead of every command made after it, with its deadline running on.
        /// `endsFlush`: it was the flush's, and the flush ends (it runs again when connected).
        /// `flush`: the caller starts a new flush (refused after a reconnect: see `flushAfterRefusal`).
        case requeued(endsFlush: Bool, flush: Bool)
    }

    /// The driver refused `request` (the transport was down: nothing was written). Made while
    /// not connected, or queued behind older commands, it waits for the next connection again:
    /// failing it would drop a command that was never sent.
    mutating func requestRefused(_ request: DriverRequest, connected: Attempt?) -> Refusal {
        guard var pending = requests[request.id] else { return .ended }
        let attempt: Attempt
        switch pending.stage {
        case .handed(request.claim, let handedOver), .carried(request.claim, let handedOver):
            attempt = handedOver
        case .queued, .handed, .carried:
            return .ended
        }
        pending.stage = .queued
        pending.endDriverRequest = nil
        requests[request.id] = pending
        queue.putBack(.request, id: request.id)
        queueObservers.yield(queue.count)
        var endsFlush = false
        if case .running(_, carrying: request.id) = flush {
            flush = .idle
            endsFlush = true
        }
        return .requeued(endsFlush: endsFlush, flush: flushAfterRefusal(over: attempt, connected: connected))
    }

    /// Request `id` ended (answered, failed, expired, cancelled): what was kept for it, whose
    /// driver part to end (`nil` when it had ended already).
    mutating func finishRequest(_ id: UInt64) -> PendingRequest? {
        guard let request = requests.removeValue(forKey: id) else { return nil }
        _ = removeQueued(id)
        return request
    }

    /// The requests the driver carries, taken out (the transport closed, or the app disconnected).
    mutating func takeInFlightRequests() -> [UInt64: PendingRequest] {
        let inFlight = requests.filter { $0.value.inFlight }
        for key in inFlight.keys { requests.removeValue(forKey: key) }
        return inFlight
    }

    /// Every queued command, oldest first, and every request, taken out (the connection is
    /// released: they all fail).
    mutating func takeAll() -> (queued: [QueuedCommand], requests: [UInt64: PendingRequest]) {
        let queued = queue.removeAll().map(\.command)
        if !queued.isEmpty { queueObservers.yield(queue.count) }
        defer { requests = [:] }
        return (queued, requests)
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
    mutating func nextFlushStep(connected: Attempt?) -> FlushStep {
        guard let connected, let (id, command) = popQueued() else {
            flush = .idle
            return .done
        }
        flush = .running(over: connected, carrying: nil)
        switch command {
        case .send(let event, let payload, let waiter):
            return .send(id: id, event, payload, waiter)
        case .request:
            switch claim(id, over: connected) {
            case .direct(let request):
                flush = .running(over: connected, carrying: id)
                return .request(request)
            case .expired(let error): return .expired(id: id, error)
            case .queued: return nextFlushStep(connected: connected)  // ended meanwhile
            }
        }
    }

    /// What became of a send the driver refused.
    enum SendRefusal: Sendable {
        /// Back in the queue, first in line; `flush`: the caller starts a new flush.
        case requeued(flush: Bool)
        /// The connection was released meanwhile: resume the waiter with ``ConnectionError/released``.
        case released(Waiter)
    }

    /// The transport refused the flush's send `id` (it dropped under the flush): first in line
    /// for the next connection; the flush ends. Once `released` (the release failed only what
    /// was still queued), no connection comes: `waiter` is handed back, to hear
    /// ``ConnectionError/released``.
    mutating func sendRefused(
        _ id: UInt64, _ event: String, _ payload: JSONValue, waiter: Waiter, released: Bool, connected: Attempt?
    ) -> SendRefusal {
        let over: Attempt? = if case .running(let over, _) = flush { over } else { nil }
        flush = .idle
        if released { return .released(waiter) }
        queue.putBack(.send(event, payload, waiter), id: id)
        queueObservers.yield(queue.count)
        guard let over else { return .requeued(flush: false) }
        return .requeued(flush: flushAfterRefusal(over: over, connected: connected))
    }

    /// Whether the caller should start a flush: connected, something queued, none running.
    mutating func claimFlush(connected: Attempt?) -> Bool {
        guard let connected, !flushing, !queue.isEmpty else { return false }
        flush = .running(over: connected, carrying: nil)
        return true
    }

    /// After a command taken over `attempt` was refused: whether to start a flush now. Refused
    /// after a reconnect (connected over a newer attempt), its flush was still running when the
    /// reconnect's `connected` looked, so that one started none, and none would run until the
    /// next connection: the queue stalled, its requests until their deadlines, its sends for
    /// good. Refused over the attempt still connected, the transport's drop is on its way, and
    /// the `connected` after it flushes.
    private mutating func flushAfterRefusal(over attempt: Attempt, connected: Attempt?) -> Bool {
        guard let connected, connected != attempt else { return false }
        return claimFlush(connected: connected)
    }

    // MARK: - The queue

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
