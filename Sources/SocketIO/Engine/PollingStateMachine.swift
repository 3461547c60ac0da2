import DequeModule
import SocketIOProtocol

/// The long-polling transport's whole state, one value: whether it runs, is paused for an
/// upgrade, closes or has finished, and in each of those what is in flight and what waits to
/// be posted. Every input returns what to do; ``PollingTransport`` does it after unlocking
/// (starting the GET loop or a POST loop, cancelling the GET, resuming waiters).
///
/// Generic over its waiters (`Pause`: the upgrade's "paused" callback, `Closed`: a
/// `waitUntilClosed` caller, `Poll`: the GET loop's task), so its tests need no I/O.
struct PollingStateMachine<Pause, Closed, Poll> {
    /// What the session has learned and queued, in every state but `finished`.
    struct Session {
        var sid: String?
        var maxPayload = 1_000_000
        var outbox = PollingOutbox()
        /// A GET is in flight (the loop runs).
        var getting = false
        /// A POST loop runs.
        var posting = false
        /// The GET loop's task, to cancel on close.
        var poll: Poll?
        /// The last upgrade probe given up before polling paused for it: that pause, when it
        /// comes, must not happen (nothing would ever resume it).
        var abandonedProbe: Int?
        var closeWaiters: [Closed] = []
    }

    enum State {
        /// Polling and posting as packets come.
        case running(Session)
        /// Paused for an upgrade: no new request starts; `waiter` runs once the GET and the
        /// POST in flight have ended.
        case paused(Session, waiter: Pause?)
        /// Closing: what is queued (the `close` packet) still goes out, then it finishes.
        case closing(Session)
        case finished
    }

    private(set) var state: State

    init(sid: String?) {
        state = .running(Session(sid: sid))
    }

    private var session: Session? {
        switch state {
        case .running(let session), .paused(let session, _), .closing(let session): session
        case .finished: nil
        }
    }

    /// Changes the session in place, whatever the state (nothing once finished). The session is
    /// taken out of `state` first: while `state` still held it, its outbox had two owners and
    /// every change copied the whole queue (copy-on-write; the server's polling buffer measured
    /// quadratic so, in release builds too).
    private mutating func update<T>(_ body: (inout Session) -> T) -> T? {
        switch state {
        case .running(var session):
            state = .finished
            defer { state = .running(session) }
            return body(&session)
        case .paused(var session, let waiter):
            state = .finished
            defer { state = .paused(session, waiter: waiter) }
            return body(&session)
        case .closing(var session):
            state = .finished
            defer { state = .closing(session) }
            return body(&session)
        case .finished:
            return nil
        }
    }

    /// Whether a POST loop may start now, and marks it started.
    private mutating func claimPost() -> Bool {
        let startable: Bool
        switch state {
        case .running(let session): startable = session.sid != nil && !session.outbox.isEmpty && !session.posting
        case .closing(let session): startable = session.sid != nil && !session.outbox.isEmpty && !session.posting
        case .paused, .finished: startable = false
        }
        if startable { update { $0.posting = true } }
        return startable
    }

    // MARK: - Sending

    /// Queues `packets`, after everything queued (`fenced`: in a later POST than what is queued
    /// already). `true`: start a POST loop.
    mutating func send(_ packets: [EnginePacket], fenced: Bool) -> Bool {
        guard update({ $0.outbox.append(packets, fenced: fenced) }) != nil else { return false }
        return claimPost()
    }

    /// The POST loop asks for its next batch: the `sid` and the body, or `nil` (the loop ends).
    mutating func nextPost(maxPackets: Int, version: EngineIOVersion) -> (sid: String, body: String)? {
        let canPost: Bool
        switch state {
        case .running, .closing: canPost = true
        case .paused, .finished: canPost = false
        }
        let next = update { session -> (String, String)? in
            guard canPost, let sid = session.sid,
                  let batch = session.outbox.takeBatch(maxPackets: maxPackets, maxBytes: session.maxPayload, version: version) else {
                session.posting = false
                return nil
            }
            return (sid, PollingPayload.encode(batch, version: version))
        }
        return next ?? nil
    }

    /// A POST failed: the loop ends; a closing transport drops what it could not post.
    mutating func postFailed() {
        if case .closing = state { update { $0.outbox.removeAll() } }
        update { $0.posting = false }
    }

    /// What to do once a POST loop ended.
    enum PostsEnded {
        case none
        /// The pause may complete.
        case paused(Pause)
        /// The close completed: finish.
        case finish([Closed])
    }

    mutating func postsEnded() -> PostsEnded {
        if let waiter = takeIdlePauseWaiter() { return .paused(waiter) }
        guard case .closing(let session) = state, !session.posting, session.outbox.isEmpty else { return .none }
        return .finish(finish())
    }

    // MARK: - Receiving

    /// The GET loop asks whether to poll again: the `sid` to poll with (`.some(nil)` for the
    /// handshake), or `nil` (the loop ends: closing, paused or finished).
    mutating func nextPoll() -> String?? {
        switch state {
        case .running(var session):
            session.getting = true
            state = .running(session)
            return .some(session.sid)
        case .paused, .closing, .finished:
            update { $0.getting = false }
            return nil
        }
    }

    /// The GET loop started as `poll` (cancelled on close).
    mutating func polling(_ poll: Poll) {
        update { $0.poll = poll }
    }

    /// The handshake told the session its id and the server's `maxPayload`. An `open` packet
    /// later in the session changes nothing (the engine ignores it too).
    mutating func opened(sid: String, maxPayload: Int?) {
        update { session in
            guard session.sid == nil else { return }
            session.sid = sid
            if let maxPayload { session.maxPayload = maxPayload }
        }
    }

    /// The server sent `close`: nothing more is polled.
    mutating func closeReceived() {
        if case .running(let session) = state { state = .closing(session) }
        if case .paused(let session, _) = state { state = .closing(session) }
    }

    /// The GET loop ended; the pause may complete.
    mutating func pollEnded() -> Pause? {
        update { $0.getting = false }
        return takeIdlePauseWaiter()
    }

    /// Whether the transport is closing or closed (a failed GET is then not an error to report).
    var isClosing: Bool {
        switch state {
        case .closing, .finished: true
        case .running, .paused: false
        }
    }

    private mutating func takeIdlePauseWaiter() -> Pause? {
        guard case .paused(let session, let waiter?) = state, !session.getting, !session.posting else { return nil }
        state = .paused(session, waiter: nil)
        return waiter
    }

    // MARK: - The upgrade

    /// What a pause for an upgrade does.
    enum PauseAction: Equatable {
        /// Nothing in flight: paused; the waiter runs now.
        case pausedNow
        /// Paused; the waiter runs once the requests in flight have ended.
        case pausing
        /// Not paused: the upgrade was given up already (or the transport closes).
        case ignored
    }

    /// Pauses for upgrade `probe`, unless that probe was given up before (its ``resume(probe:)``
    /// came first: the probe's timer and its answer race).
    mutating func pause(probe: Int, _ waiter: Pause) -> PauseAction {
        guard case .running(let session) = state, session.abandonedProbe != probe else { return .ignored }
        let idle = !session.getting && !session.posting
        state = .paused(session, waiter: idle ? nil : waiter)
        return idle ? .pausedNow : .pausing
    }

    /// Upgrade `probe` did not happen: polling and posting go on (a pause for it that has not
    /// come yet will not happen). Whether to start the GET loop and a POST loop.
    mutating func resume(probe: Int) -> (poll: Bool, post: Bool) {
        if case .running = state { update { $0.abandonedProbe = probe } }
        return resume()
    }

    /// The upgrade did not happen: polling and posting go on. Whether to start the GET loop
    /// and a POST loop.
    mutating func resume() -> (poll: Bool, post: Bool) {
        guard case .paused(let session, _) = state else { return (false, false) }
        state = .running(session)
        return (!session.getting, claimPost())
    }

    /// The packets queued and not yet posted (they go to the new transport after an upgrade).
    mutating func takeUnsent() -> FencedPackets {
        update { $0.outbox.takeAll() } ?? FencedPackets()
    }

    // MARK: - Closing

    /// What `close()` does.
    struct CloseAction {
        var cancelPoll: Poll?
        /// Start a POST loop for what is queued (the `close` packet).
        var post = false
        /// Nothing to wait for: finish now.
        var finish: [Closed]?
    }

    /// Closes: what is queued still goes out (once a session exists), even while paused.
    ///
    /// The held GET stays open until the last POST is answered (the transport's shutdown then
    /// ends it): a server that ends a session when its held GET's connection closes — socket.io's
    /// does (`poll connection closed prematurely`), ours too — would otherwise drop what that
    /// POST carries, the last emits and the close packet, whenever the GET's close came first.
    mutating func close() -> CloseAction {
        guard var session = session else { return CloseAction() }
        if session.sid == nil { session.outbox.removeAll() }
        state = .closing(session)
        if !session.posting && !session.outbox.isEmpty {
            update { $0.posting = true }
            return CloseAction(post: true)
        }
        if session.posting { return CloseAction() }
        update { $0.poll = nil }
        return CloseAction(cancelPoll: session.poll, finish: finish())
    }

    /// Drops the transport at once, nothing posted (an upgrade replaced it).
    mutating func discard() -> (cancelPoll: Poll?, waiters: [Closed]) {
        let poll = session?.poll
        return (poll, finish())
    }

    /// A `waitUntilClosed` caller: `true` when already finished (resume it now).
    mutating func waitUntilClosed(_ waiter: Closed) -> Bool {
        update { $0.closeWaiters.append(waiter) } == nil
    }

    /// Finished: the close waiters to resume.
    mutating func finish() -> [Closed] {
        guard let session else { return [] }
        state = .finished
        return session.closeWaiters
    }
}

extension PollingStateMachine: Sendable where Pause: Sendable, Closed: Sendable, Poll: Sendable {}
extension PollingStateMachine.Session: Sendable where Pause: Sendable, Closed: Sendable, Poll: Sendable {}
extension PollingStateMachine.State: Sendable where Pause: Sendable, Closed: Sendable, Poll: Sendable {}
