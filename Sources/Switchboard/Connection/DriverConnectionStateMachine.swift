import DequeModule
import SwitchboardCore
import SocketIOProtocol

/// Everything a ``DriverConnection`` keeps, as one value: the lifecycle
/// (``ConnectionStateMachine``), the commands (``CommandLane``: the offline queue, its flush, the
/// requests from their call until their answer), the `connect()` callers, the one lane of driver
/// operations (opens and closes run one after the other), and the observers. One `mutating func` per event, each returning what the
/// owner does after its lock is released: resume a caller, start a driver operation, fail requests.
///
/// Generic over `Waiter` (what a `connect()` or queued `send` caller waits on) and `Done` (what a
/// `disconnect()`/`release()` caller waits on until the driver closed), so tests drive it with
/// plain values.
///
/// Observers are yielded to inside the transitions: a yield runs no user code, and yielding in
/// the transition keeps every observer's view in the order the changes happened.
struct DriverConnectionStateMachine<Waiter: Sendable, Done: Sendable>: Sendable {
    /// A driver operation; they run one at a time, in the order they were asked for.
    enum DriverJob: Sendable {
        case open(ConnectionStateMachine.Attempt)
        /// Close (or suspend, keeping the server's session); `done` hears when it returned.
        case close(keepingSession: Bool, done: Done?)
    }

    /// The driver operation running now.
    enum DriverLane: Sendable {
        case idle
        /// An open runs; `task` once the owner registered it, `abandoned` once the app gave it up,
        /// `closed` once the driver reported its transport closed before the open returned.
        case opening(ConnectionStateMachine.Attempt, task: Task<Void, Never>?, abandoned: Bool, closed: String? = nil)
        case closing
    }

    private(set) var lifecycle = ConnectionStateMachine()
    /// The queue, the flush and the requests; changed by the inputs in +Commands (and here by
    /// the disconnect, the release and a transport drop).
    var commands: CommandLane<Waiter>
    private(set) var connectWaiters: [UInt64: (attempt: ConnectionStateMachine.Attempt, waiter: Waiter)] = [:]
    private(set) var lane: DriverLane = .idle
    private(set) var jobs: Deque<DriverJob> = []
    /// What the driver said of session recovery when the last open succeeded.
    private(set) var recovered: Bool?
    /// Why the last open failed or the transport was lost; cleared by a successful open.
    private(set) var lastError: String?
    private var nextID: UInt64 = 0

    var subscribers = KeyedObserverSets<String, JSONValue>()
    var requestSubscribers = KeyedObserverSets<String, IncomingRequest>()
    var stateObservers = ObserverSet<ConnectionState>()

    init(queueLimit: Int) {
        commands = CommandLane(queueLimit: queueLimit)
    }

    /// The public state.
    var connectionState: ConnectionState { lifecycle.connectionState }

    /// A new id for a caller (a waiter, a queued command, a request).
    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    // MARK: - Connecting

    /// What to do after `connect()`'s transition.
    struct ConnectAction: Sendable {
        /// Refused: resume the caller with it.
        var failure: ConnectionError?
        /// Start this driver operation.
        var run: DriverJob?
    }

    /// `connect()`: the caller `waiter` (id `id`) waits for the open, started now or joined.
    mutating func connect(_ id: UInt64, waiter: Waiter) -> ConnectAction {
        do throws(ConnectionError) {
            switch try lifecycle.connect() {
            case .open(let attempt):
                connectWaiters[id] = (attempt, waiter)
                return ConnectAction(run: schedule(.open(attempt)))
            case .join(let attempt):
                connectWaiters[id] = (attempt, waiter)
                return ConnectAction()
            }
        } catch {
            return ConnectAction(failure: error)
        }
    }

    /// A `connect()` caller gave up: its waiter, to resume with `cancelled` (`nil` if answered).
    mutating func cancelConnect(_ id: UInt64) -> Waiter? {
        connectWaiters.removeValue(forKey: id)?.waiter
    }

    /// What to do when an open returned.
    struct OpenFinished: Sendable {
        /// Why the open failed, to resume the waiters with; `nil` when it succeeded.
        var failure: ConnectionError?
        var waiters: [Waiter] = []
        /// Whether the caller starts a flush.
        var flush = false
        var run: DriverJob?
    }

    /// The open of `attempt` returned: `recovered` as the driver said, or failed with `failure`.
    /// An open whose transport closed before it returned failed (``OpenFinished/failure``).
    mutating func openFinished(_ attempt: ConnectionStateMachine.Attempt, recovered: Bool?, failure: ConnectionError?) -> OpenFinished {
        var failure = failure
        if failure == nil, case .opening(attempt, _, _, closed: let reason?) = lane {
            failure = .connectFailed("the transport closed as it opened (\(reason))")
        }
        var finished = OpenFinished(failure: failure)
        let action = failure == nil ? lifecycle.openSucceeded(attempt) : lifecycle.openFailed(attempt)
        switch action {
        case .stale:
            break
        case .moved:
            if let failure {
                // Given up by the app (disconnect while connecting): no failure to show.
                if failure != .cancelled { lastError = "\(failure)" }
            } else {
                self.recovered = recovered
                lastError = nil
            }
            finished.waiters = takeConnectWaiters(for: attempt)
            finished.flush = failure == nil && claimFlush()
        }
        finished.run = driverJobFinished()
        return finished
    }

    /// The owner started the open's task: `true` when it is to be cancelled at once (the app gave
    /// the open up before the task was known).
    mutating func openStarted(_ attempt: ConnectionStateMachine.Attempt, task: Task<Void, Never>) -> Bool {
        guard case .opening(attempt, nil, let abandoned, let closed) = lane else { return false }
        lane = .opening(attempt, task: task, abandoned: abandoned, closed: closed)
        return abandoned
    }

    /// A driver operation returned: the lane is free; the next operation to start, if any.
    mutating func driverJobFinished() -> DriverJob? {
        lane = .idle
        guard let next = jobs.popFirst() else { return nil }
        return start(next)
    }

    private mutating func schedule(_ job: DriverJob) -> DriverJob? {
        guard case .idle = lane, jobs.isEmpty else {
            jobs.append(job)
            return nil
        }
        return start(job)
    }

    private mutating func start(_ job: DriverJob) -> DriverJob {
        switch job {
        case .open(let attempt): lane = .opening(attempt, task: nil, abandoned: false)
        case .close: lane = .closing
        }
        return job
    }

    private mutating func takeConnectWaiters(for attempt: ConnectionStateMachine.Attempt) -> [Waiter] {
        let matching = connectWaiters.filter { $0.value.attempt == attempt }
        for key in matching.keys { connectWaiters.removeValue(forKey: key) }
        return matching.values.map(\.waiter)
    }

    // MARK: - Disconnecting and releasing

    /// What to do after `disconnect()`/`suspend()`.
    struct Disconnecting: Sendable {
        /// `connect()` callers of the abandoned open.
        var waiters: [Waiter] = []
        /// Requests the driver carried: they fail.
        var lost: [UInt64: PendingRequest] = [:]
        /// The running open to cancel.
        var cancelOpen: Task<Void, Never>?
        /// Start this driver operation.
        var run: DriverJob?
        /// Whether a close was scheduled (its `done` will hear when it returned).
        var closing = false
    }

    /// `disconnect()` (or `suspend()` with `keepingSession`); `done` hears when the close returned.
    mutating func disconnect(keepingSession: Bool, done: Done) throws(ConnectionError) -> Disconnecting {
        var result = Disconnecting()
        switch try lifecycle.disconnect() {
        case .none:
            return result
        case .close(let abandoned):
            if let abandoned {
                result.waiters = takeConnectWaiters(for: abandoned)
                result.cancelOpen = abandon(abandoned)
            }
            result.lost = commands.takeInFlightRequests()
            result.run = schedule(.close(keepingSession: keepingSession, done: done))
            result.closing = true
            return result
        }
    }

    /// Gives up the open of `attempt`: out of the lane's queue if it waits, else marked (and its
    /// task returned, to cancel) if it runs.
    private mutating func abandon(_ attempt: ConnectionStateMachine.Attempt) -> Task<Void, Never>? {
        jobs.removeAll { if case .open(attempt) = $0 { true } else { false } }
        guard case .opening(attempt, let task, _, let closed) = lane else { return nil }
        lane = .opening(attempt, task: task, abandoned: true, closed: closed)
        return task
    }

    /// What to do after `release()`: every caller and stream to end.
    struct Releasing: Sendable {
        var queued: [QueuedCommand]
        var requests: [UInt64: PendingRequest]
        var streams: [ObserverSet<JSONValue>.Observer]
        var requestStreams: [ObserverSet<IncomingRequest>.Observer]
        var observers: [ObserverSet<ConnectionState>.Observer]
        var queueObservers: [ObserverSet<Int>.Observer]
        var run: DriverJob?
    }

    /// `release()`: only from `disconnected`; `done` hears when the driver closed.
    mutating func release(done: Done) throws(ConnectionError) -> Releasing {
        try lifecycle.release()
        let (queued, requests) = commands.takeAll()
        return Releasing(
            queued: queued, requests: requests, streams: subscribers.takeAll(), requestStreams: requestSubscribers.takeAll(),
            observers: stateObservers.takeAll(), queueObservers: commands.queueObservers.takeAll(),
            run: schedule(.close(keepingSession: false, done: done))
        )
    }

    // MARK: - Transport events

    /// Whether `attempt` is the current one (its events count).
    func isCurrent(_ attempt: ConnectionStateMachine.Attempt) -> Bool {
        lifecycle.currentAttempt == attempt
    }

    /// The server sent `event` over `attempt`: its subscribers hear it (a stale attempt's is dropped).
    mutating func deliver(_ event: String, _ payload: JSONValue, from attempt: ConnectionStateMachine.Attempt) {
        guard isCurrent(attempt) else { return }
        subscribers[event].yield(payload)
    }

    /// The server asked `request` over `attempt`: its event's subscribers hear the payload, its
    /// request subscribers the request. `false` when nobody listens for the request (decline it).
    mutating func deliver(_ request: IncomingRequest, from attempt: ConnectionStateMachine.Attempt) -> Bool {
        guard isCurrent(attempt) else { return true }
        subscribers[request.event].yield(request.payload)
        guard !requestSubscribers[request.event].isEmpty else { return false }
        requestSubscribers[request.event].yield(request)
        return true
    }

    /// The transport of `attempt` closed by itself (`reason`): the requests it carried, to fail
    /// (`nil` when the attempt is stale). While its open runs, the open fails when it returns.
    mutating func transportClosed(_ attempt: ConnectionStateMachine.Attempt, reason: String) -> [UInt64: PendingRequest]? {
        switch lifecycle.transportClosed(attempt) {
        case .stale:
            if case .opening(attempt, let task, let abandoned, nil) = lane {
                lane = .opening(attempt, task: task, abandoned: abandoned, closed: reason)
            }
            return nil
        case .moved:
            lastError = reason
            return commands.takeInFlightRequests()
        }
    }
}
