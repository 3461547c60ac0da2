import SocketIOProtocol

/// Everything one namespace's cluster adapter (``NamespaceCluster``) knows, as a value type: its
/// lifecycle, the other servers and when each was last heard from, their message numbering
/// (``ClusterNumbering``), what it waits to hear from them (``ClusterRequests``), what it has
/// yet to publish (``ClusterOutbox``) and who waits for the server count.
///
/// The owner feeds it one input at a time under its one lock and performs what comes back after
/// the lock is released: resuming continuations, completing requests, waking the publish loop,
/// cancelling tasks, calling into the namespace. It reads no clock (times come in as
/// arguments) and calls nothing. `Waiter` is a task parked until something happens (a
/// `waitForServers` caller, the publish loop), `Caller` someone awaiting one message's publish;
/// both are continuations in production and opaque here, so every rule is tested without tasks.
///
/// Lifecycle: `idle → starting → running → closing → closed`; see ``Lifecycle``.
struct ClusterState<Waiter, Caller> {
    /// Where the adapter is in its life.
    enum Lifecycle {
        /// Not started, or its start failed (then its outbox refuses what is published: no
        /// loop would take it). Next: `starting` (``start(_:)``), `closing`.
        case idle
        /// Subscribing to the namespace's channel. Next: `running` (``subscribed(at:)``),
        /// `idle` (``subscribeFailed(reason:)``), `closing`.
        case starting(any ClusterReceiver)
        /// Publishing, receiving, heartbeating and checking the others with `tasks`.
        /// Next: `closing`.
        case running(any ClusterReceiver, tasks: [Task<Void, Never>])
        /// Saying goodbye (`ADAPTER_CLOSE`); what arrives meanwhile is still applied when it
        /// was started. Next: `closed` (``close()``).
        case closing((any ClusterReceiver)?, tasks: [Task<Void, Never>])
        /// Terminal: publishes are refused, requests fail, nothing is applied.
        case closed
    }

    /// Side effects to perform outside the lock, in this order.
    struct Effects {
        /// Tasks to cancel.
        var cancel: [Task<Void, Never>] = []
        /// The publish loop, to wake.
        var wake: Waiter?
        /// Requests to settle.
        var completions: [ClusterRequests.Completion] = []
        /// Callers of `publishAwaiting` to tell.
        var callers: [(caller: Caller, result: Result<Void, ClusterError>)] = []
        /// Messages nobody awaited that were not published (counted in ``failures``): to log.
        var unpublished: [(type: ClusterMessageType, reason: String)] = []
        /// The number of known servers changed (or may have): for the metrics.
        var serverCount: Int?
        /// `waitForServers` callers whose count is reached, to resume.
        var ready: [Waiter] = []
    }

    /// This server's id, as its messages carry it.
    let uid: String
    /// The namespace.
    let namespace: String
    let options: ClusterOptions
    private(set) var lifecycle: Lifecycle = .idle
    /// Other servers by uid → when last heard from.
    var nodes: [String: Duration] = [:]
    /// The other servers' message numbering.
    var numbering = ClusterNumbering()
    /// Messages of other servers known lost: gaps in their numbering (saturating at `Int.max`).
    var missed: Int { numbering.missed }
    /// Messages that could not be published and had no caller to tell.
    var failures = 0
    var requests = ClusterRequests()
    var outbox = ClusterOutbox<Waiter, Caller>()
    /// `waitForServers` callers and the server count each waits for.
    private var countWaiters: [(count: Int, waiter: Waiter)] = []

    init(uid: String, namespace: String, options: ClusterOptions) {
        self.uid = uid
        self.namespace = namespace
        self.options = options
    }

    /// This server and every other one heard from within the heartbeat timeout.
    var serverCount: Int { 1 + nodes.count }

    var isClosed: Bool {
        switch lifecycle {
        case .closed: true
        case .idle, .starting, .running, .closing: false
        }
    }

    /// Closing or closed: the server is leaving the cluster (its store is going away).
    var isLeaving: Bool {
        switch lifecycle {
        case .closing, .closed: true
        case .idle, .starting, .running: false
        }
    }

    /// The namespace messages are applied through, from the start until the close.
    var receiver: (any ClusterReceiver)? {
        switch lifecycle {
        case .starting(let receiver), .running(let receiver, _): receiver
        case .closing(let receiver, _): receiver
        case .idle, .closed: nil
        }
    }

    // MARK: - Lifecycle

    /// A start: `true` when the owner should subscribe (only from `idle`; a second start
    /// while one is under way, or after a shutdown began, does nothing).
    mutating func start(_ receiver: any ClusterReceiver) -> Bool {
        switch lifecycle {
        case .idle:
            lifecycle = .starting(receiver)
            outbox.resume()
            return true
        case .starting, .running, .closing, .closed:
            return false
        }
    }

    /// The subscription failed for `reason`: back to `idle`, so a start can be tried again;
    /// until then what was queued fails (its callers told) and what comes is refused, as no loop
    /// would publish it. When a shutdown began meanwhile, no loop will ever say its goodbye:
    /// the adapter closes now (what that returns ends the shutdown's wait).
    mutating func subscribeFailed(reason: String) -> Effects {
        switch lifecycle {
        case .starting:
            lifecycle = .idle
            let why = "the cluster adapter did not start: \(reason)"
            return unpublished(outbox.suspend(.publishFailed(why)), reason: why)
        case .closing:
            return close()
        case .idle, .running, .closed:
            break
        }
        return Effects()
    }

    enum Subscribed {
        /// Start the loops, wake the publish loop (if set): the announcement
        /// (`INITIAL_HEARTBEAT`) is queued.
        case startLoops(wake: Waiter?)
        /// A shutdown began meanwhile: start the loops so the goodbye goes out; no announcement.
        case startLoopsToSayGoodbye
        /// Closed meanwhile: start nothing.
        case stop
    }

    /// The channel is subscribed.
    mutating func subscribed(at now: Duration) -> Subscribed {
        switch lifecycle {
        case .starting(let receiver):
            lifecycle = .running(receiver, tasks: [])
            let hello = ClusterMessage(uid: uid, namespace: namespace, payload: .none(.initialHeartbeat))
            switch outbox.push(hello, at: now, awaiting: .nobody) {
            case .queued(_, let wake): return .startLoops(wake: wake)
            case .refused: return .startLoops(wake: nil)
            }
        case .closing:
            return .startLoopsToSayGoodbye
        case .idle, .running, .closed:
            return .stop
        }
    }

    /// The loops started with `tasks`; returns those to cancel (all of them once closed).
    mutating func attach(_ tasks: [Task<Void, Never>]) -> [Task<Void, Never>] {
        switch lifecycle {
        case .running(let receiver, let running):
            lifecycle = .running(receiver, tasks: running + tasks)
            return []
        case .closing(let receiver, let running):
            lifecycle = .closing(receiver, tasks: running + tasks)
            return []
        case .idle, .starting, .closed:
            return tasks
        }
    }

    enum Shutdown: Equatable {
        /// Say goodbye (`ADAPTER_CLOSE`: the publish loop runs, or starts once subscribed), then
        /// ``close()``.
        case sayGoodbye
        /// Never started (or its start failed): no loop would publish a goodbye, and no server
        /// heard of this one. ``close()`` at once.
        case close
        /// A shutdown began already.
        case alreadyBegun
    }

    /// A shutdown (only once).
    mutating func beginShutdown() -> Shutdown {
        switch lifecycle {
        case .idle:
            lifecycle = .closing(nil, tasks: [])
            return .close
        case .starting(let receiver):
            lifecycle = .closing(receiver, tasks: [])
        case .running(let receiver, let tasks):
            lifecycle = .closing(receiver, tasks: tasks)
        case .closing, .closed:
            return .alreadyBegun
        }
        return .sayGoodbye
    }

    /// The adapter closes: waiting requests fail, queued messages are dropped (their callers
    /// told), the loops are cancelled, and nobody waits for servers of a namespace that left.
    mutating func close() -> Effects {
        var effects = Effects()
        switch lifecycle {
        case .running(_, let tasks), .closing(_, let tasks): effects.cancel = tasks
        case .idle, .starting, .closed: break
        }
        lifecycle = .closed
        effects.completions = requests.close(.closed)
        let (_, callers, wake) = outbox.close()
        effects.wake = wake
        effects.callers = callers.map { ($0, .failure(.closed)) }
        effects.ready = countWaiters.map(\.waiter)
        countWaiters.removeAll()
        return effects
    }

    // MARK: - Server count

    /// A caller waits until exactly `count` servers (this one included) are known; `false`
    /// when it need not wait (the count is there, or the adapter closed).
    mutating func waitForServers(_ count: Int, _ waiter: Waiter) -> Bool {
        guard serverCount != count, !isClosed else { return false }
        countWaiters.append((count, waiter))
        return true
    }

    /// The servers changed: the count for the metrics, and the waiters whose count it is.
    mutating func serversChanged(_ effects: inout Effects) {
        let count = serverCount
        effects.serverCount = count
        effects.ready += countWaiters.filter { $0.count == count }.map(\.waiter)
        countWaiters.removeAll { $0.count == count }
    }
}

extension ClusterState: Sendable where Waiter: Sendable, Caller: Sendable {}
