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
        /// Set once handed to the driver: from then on a transport drop fails it.
        var inFlight = false
        /// Ends the driver's part (cancels its task, or tells a ``CallbackRequestDriver``),
        /// called when the request ends first.
        var endDriverRequest: (@Sendable () -> Void)?
    }

    /// A request handed to the driver: what to send and with how much of its deadline left.
    struct DriverRequest: Sendable {
        let id: UInt64
        let event: String
        let payload: JSONValue
        let timeout: Duration
        let remaining: Duration
    }

    private(set) var queue: CommandQueue<QueuedCommand>
    /// Whether a flush is running the queue (at most one does, so order holds).
    private(set) var flushing = false
    private(set) var requests: [UInt64: PendingRequest] = [:]
    var queueObservers = ObserverSet<Int>()

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
        if canExecuteDirectly(connected: connected) {
            requests[id] = request
            return claim(id)
        }
        try enqueue(.request, id: id)
        requests[id] = request
        return .queued(flush: claimFlush(connected: connected))
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
        guard connected != nil, let (id, command) = popQueued() else {
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
            case .queued: return nextFlushStep(connected: connected)  // ended meanwhile
            }
        }
    }

    /// The transport refused the flush's send `id` (it dropped under the flush): first in line
    /// for the next connection; the flush ends. Once `released` (the release failed only what
    /// was still queued), no connection comes: `waiter` is handed back, to hear
    /// ``ConnectionError/released``.
    mutating func sendRefused(_ id: UInt64, _ event: String, _ payload: JSONValue, waiter: Waiter, released: Bool) -> Waiter? {
        flushing = false
        if released { return waiter }
        queue.putBack(.send(event, payload, waiter), id: id)
        queueObservers.yield(queue.count)
        return nil
    }

    /// Whether the caller should start a flush: connected, something queued, none running.
    mutating func claimFlush(connected: Attempt?) -> Bool {
        guard connected != nil, !flushing, !queue.isEmpty else { return false }
        flushing = true
        return true
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
