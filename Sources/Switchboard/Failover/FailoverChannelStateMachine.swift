import SocketIOProtocol
import SwitchboardCore

/// A failover channel's rules, as a value type: which link carries the channel, the resume
/// handshake, numbering and acknowledging (``ReliableSender``, ``ReliableReceiver``), the
/// policy's decisions, and the order of what is written on the link.
///
/// The owner (``FailoverDriver``) feeds it one input per event — the app opens, closes or
/// sends; a link reports; a timer fires; the network path changes; a connect attempt starts or
/// fails — under its lock, and performs the returned actions after releasing it: writing on a
/// link, resuming a waiter, calling the connection above, starting a reconnection. Nothing here
/// does I/O or reads a clock (`now` is passed in), so every rule is tested event by event.
/// `Link` is a transport connection (``FailoverLink`` in production), `Waiter` the connect loop
/// waiting for `resumed` (a continuation), `Listener` the connection above (its event
/// callback); all three are opaque here.
///
/// States: `closed → active → closed`; while active the link goes `none → connecting(g) →
/// resuming(g) → connected(g) → none …`, where `g` is the link's generation: a report from
/// any other generation is stale and ignored.
struct FailoverChannelStateMachine<Link: Sendable, Waiter: Sendable, Listener: Sendable>: Sendable {
    enum State: Sendable {
        /// Before ``open(listener:)``, after ``close()`` (or a failed open): nothing connects;
        /// sends are numbered and kept. Next: `active`.
        case closed
        /// Between open and close. `listener` is the connection above, `nil` once the channel
        /// gave up (it was told). Next: `closed`.
        case active(listener: Listener?, link: LinkState)
    }

    /// The link of an active channel.
    enum LinkState: Sendable {
        /// No link, no attempt running (a reconnection is about to start, or gave up). Next: `connecting`.
        case none
        /// Attempt `generation` opens its link. Next: `resuming`, or `connecting` again.
        case connecting(generation: Int)
        /// The link of `generation` is open and `resume` went out; `waiter` hears `resumed`
        /// (or why not). Next: `connected`, or `connecting` (it failed, a new channel, or a new attempt).
        case resuming(generation: Int, link: Link, transport: FailoverTransport, waiter: Waiter)
        /// The link of `generation` carries the channel. Next: `none` (lost, or a switch).
        case connected(Connected)
    }

    typealias Connected = FailoverLinkOutbox<Link>

    var state = State.closed
    /// The channel's id, what it numbered and delivered.
    var ledger: FailoverLedger
    var policy: any FailoverPolicy
    /// The transport the channel last resumed on (kept when the link goes).
    var transport: FailoverTransport?
    /// The last generation handed out: links and attempts are numbered.
    var generation = 0
    /// A message unacknowledged this long means the link stalled.
    let ackTimeout: Duration
    /// The short acknowledgement timer runs.
    var ackTimerRunning = false
    var tasks = FailoverChannel.Tasks()
    /// The app's observers of ``FailoverEvent``s (given to them after the transition).
    var observers = ObserverSet<FailoverEvent>()

    /// A closed channel `channelID`, at most `window` messages unacknowledged, acknowledging
    /// after `ackEvery`, deciding with `policy`.
    init(channelID: String, window: Int, ackEvery: Int, ackTimeout: Duration, policy: any FailoverPolicy) {
        self.ledger = FailoverLedger(channelID: channelID, window: window, ackEvery: ackEvery)
        self.ackTimeout = ackTimeout
        self.policy = policy
    }

    /// The link carrying the channel now.
    var connected: Connected? {
        if case .active(_, .connected(let connected)) = state { return connected }
        return nil
    }

    // MARK: - The app

    /// `open`: the channel is wanted; `listener` hears it. Returns the transport to try first.
    mutating func open(listener: Listener) -> FailoverTransport {
        switch state {
        case .closed: state = .active(listener: listener, link: .none)
        case .active(_, let link): state = .active(listener: listener, link: link)
        }
        return transport ?? policy.initial
    }

    /// `close` (or an open that failed): the link, the resume waiting and the background
    /// tasks are handed out to be ended; reports from before are stale from here on.
    mutating func close() -> CloseAction {
        generation += 1
        var action = CloseAction(tasks: tasks.all)
        tasks = FailoverChannel.Tasks()
        if case .active(_, let link) = state {
            switch link {
            case .none, .connecting: break
            case .resuming(_, _, _, let waiter): action.waiter = waiter
            case .connected(let connected): action.link = connected.link
            }
        }
        state = .closed
        return action
    }

    /// The app sends `message` (in the slot `token` holds, if any): numbered and kept until
    /// acknowledged (a decline is not), and queued on the link if one carries the channel.
    /// - Throws: ``ReliableChannelError/windowFull(window:)`` (nothing was kept).
    mutating func send(_ message: FailoverChannel.Outgoing, holding token: Int? = nil, now: Duration) throws(ReliableChannelError) -> SendAction {
        var action = SendAction()
        let envelope: Envelope
        switch message {
        case .decline(let id, let reason):
            if connected != nil { action.write = enqueue([.error(id: id, message: reason)]) } else { ledger.hold(decline: .error(id: id, message: reason)) }
            return action
        case .event(let name, let data):
            envelope = .event(name: name, data: data)
        case .request(let name, let data):
            let id = ledger.requestID()
            action.requestID = id
            envelope = .request(name: name, data: data, id: id)
        case .reply(let id, let data):
            envelope = .reply(id: id, data: data)
        }
        let seq = try ledger.number(envelope, holding: token)
        guard connected != nil else { return action }
        action.write = enqueue(ledger.sending(envelope, seq: seq, now: now))
        return action
    }

    /// A send waits for room with `token` (``FailoverLedger/roomToken()``); nothing makes room while closed.
    mutating func waitForRoom(_ token: Int) -> FailoverChannel.RoomWait {
        guard case .active = state else { return .closed }
        return ledger.waitForRoom(token) ? .holding : .waiting
    }

    /// The writer of link `generation` wrote its batch: the next one, or `nil` (it stops being
    /// the writer).
    mutating func written(generation: Int) -> Write? {
        guard case .active(let listener, .connected(var connected)) = state, connected.generation == generation else { return nil }
        state = .closed  // no second reference to the outbox while it changes
        defer { state = .active(listener: listener, link: .connected(connected)) }
        return connected.written()
    }

    /// A background task started (`task`): it replaces the one in its role, which is returned
    /// to be cancelled.
    mutating func adopt(_ task: Task<Void, Never>, as role: FailoverChannel.Tasks.Role) -> Task<Void, Never>? {
        tasks.replace(role, with: task)
    }

    /// Queues `envelopes` on the current link; returns them to write when nobody writes now.
    mutating func enqueue(_ envelopes: [Envelope]) -> Write? {
        guard case .active(let listener, .connected(var connected)) = state else { return nil }
        state = .closed  // no second reference to the outbox while it changes
        defer { state = .active(listener: listener, link: .connected(connected)) }
        return connected.enqueue(envelopes)
    }
}
