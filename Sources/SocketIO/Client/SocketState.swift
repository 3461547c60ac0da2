import SocketIOProtocol
import SwitchboardCore

/// Everything a ``Socket`` keeps beside its listeners, as one value: the namespace's
/// ``SocketStateMachine``, the auth, the status observers, the callers waiting in `connect()`,
/// and the at-least-once emits (``RetryQueue``) with their callers.
///
/// The socket runs one method (or one machine transition) per event under its lock and does
/// what it hands back — write, resume a caller, publish — after releasing it.
struct SocketState: Sendable {
    typealias RetryCaller = @Sendable (Result<[JSONValue], SocketIOError>) -> Void

    var machine: SocketStateMachine
    var auth: SocketAuth
    var statusObservers = ObserverSet<SocketStatus>()
    private(set) var connectWaiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    /// At-least-once emits (`retries` > 0): one in flight, in order.
    var retryQueue = RetryQueue()
    private(set) var retryCallers: [Int: RetryCaller] = [:]
    private var nextWaiterID = 0
    /// The deadline of the CONNECT in flight, cancelled once the connect is settled: left to
    /// run, each would hold its task for the whole `connectTimeout` (thousands of them in a
    /// client whose connections come and go).
    private var connectDeadline: (timer: ManagerConnection.Timer, attempt: Int)?

    init(machine: SocketStateMachine, auth: SocketAuth) {
        self.machine = machine
        self.auth = auth
    }

    /// The app asked to connect: what to do, and the status to publish.
    mutating func connect(engineOpen: Bool, sid: String = "") -> (action: SocketStateMachine.ConnectAction, status: SocketStatus) {
        (machine.connect(engineOpen: engineOpen, sid: sid), machine.status)
    }

    /// The app disconnected: what to do, and the buffered packets dropped (their ack callers
    /// are told).
    mutating func disconnect() -> (action: SocketStateMachine.DisconnectAction, dropped: [SocketPacket]) {
        (machine.disconnect(), machine.drainSendBuffer())
    }

    /// Reconnection gave up: whether the socket was waiting for it, and its status now.
    mutating func reconnectionFailed() -> (wasWaiting: Bool, status: SocketStatus) {
        (machine.reconnectionFailed(), machine.status)
    }

    /// What the CONNECT packet carries: the auth and the recovery fields.
    mutating func connectFields() -> (auth: SocketAuth, recovery: JSONObject) {
        (auth, machine.recoveryFields())
    }

    /// The ack ids of packets still in the send buffer (their acks wait for the resend).
    var bufferedAckIDs: Set<Int> { Set(machine.sendBuffer.compactMap(\.id)) }

    // MARK: - connect() callers

    /// A new `connect()` caller's id.
    mutating func makeWaiterID() -> Int {
        nextWaiterID += 1
        return nextWaiterID
    }

    mutating func addConnectWaiter(_ id: Int, _ continuation: CheckedContinuation<Void, any Error>) {
        connectWaiters[id] = continuation
    }

    mutating func removeConnectWaiter(_ id: Int) -> CheckedContinuation<Void, any Error>? {
        connectWaiters.removeValue(forKey: id)
    }

    /// The connect is settled (accepted, refused, given up): every `connect()` caller, to
    /// resume, and the CONNECT's deadline, to cancel.
    mutating func settleConnect() -> (waiters: [CheckedContinuation<Void, any Error>], deadline: ManagerConnection.Timer?) {
        defer {
            connectWaiters = [:]
            connectDeadline = nil
        }
        return (Array(connectWaiters.values), connectDeadline?.timer)
    }

    /// The namespace ended before its CONNECT was answered (the app disconnected, the session
    /// was lost), with or without `connect()` callers: that CONNECT's deadline, to cancel. Not
    /// when it is the one awaited again (a new connect began meanwhile).
    mutating func takeEndedConnectDeadline() -> ManagerConnection.Timer? {
        guard let deadline = connectDeadline, !machine.awaitsConnect(deadline.attempt) else { return nil }
        connectDeadline = nil
        return deadline.timer
    }

    /// Keeps `deadline`, CONNECT number `attempt`'s; returns the deadline to cancel: the one it
    /// replaces, or `deadline` itself when that CONNECT was settled meanwhile.
    mutating func keepConnectDeadline(_ deadline: ManagerConnection.Timer, attempt: Int) -> ManagerConnection.Timer? {
        guard machine.awaitsConnect(attempt) else { return deadline }
        defer { connectDeadline = (deadline, attempt) }
        return connectDeadline?.timer
    }

    // MARK: - At-least-once emits

    /// Queues an emit with its caller; returns its sequence number, or `nil` when not connected
    /// and the queue already holds `sendBufferLimit` emits (the offline buffer's bound).
    mutating func enqueueRetrying(_ event: String, items: [JSONValue], timeout: Duration, retries: Int, caller: @escaping RetryCaller) -> Int? {
        guard machine.isConnected || retryQueue.entries.count < machine.sendBufferLimit else { return nil }
        let sequence = retryQueue.enqueue(event: event, items: items, timeout: timeout, retries: retries)
        retryCallers[sequence] = caller
        return sequence
    }

    /// What the retry queue sends now.
    mutating func drainRetries(force: Bool) -> RetryQueue.Action {
        retryQueue.drain(connected: machine.isConnected, force: force)
    }

    mutating func takeRetryCaller(_ sequence: Int) -> RetryCaller? {
        retryCallers.removeValue(forKey: sequence)
    }

    /// The caller of `sequence` stopped waiting: whether it was the head, and its caller.
    mutating func cancelRetrying(_ sequence: Int) -> (wasHead: Bool, caller: RetryCaller?) {
        (retryQueue.remove(sequence: sequence), retryCallers.removeValue(forKey: sequence))
    }

    /// Empties the retry queue; returns the callers to tell.
    mutating func failRetries() -> [RetryCaller] {
        retryQueue.removeAll().compactMap { retryCallers.removeValue(forKey: $0) }
    }
}
