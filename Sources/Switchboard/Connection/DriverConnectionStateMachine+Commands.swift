import SwitchboardCore
import SocketIOProtocol

/// The command inputs: the lifecycle says whether a command is allowed at all (not once
/// `released`) and which attempt is connected; ``CommandLane`` does the rest.
extension DriverConnectionStateMachine {
    typealias QueuedCommand = CommandLane<Waiter>.QueuedCommand
    typealias PendingRequest = CommandLane<Waiter>.PendingRequest
    typealias DriverRequest = CommandLane<Waiter>.DriverRequest
    typealias RequestStart = CommandLane<Waiter>.RequestStart
    typealias FlushStep = CommandLane<Waiter>.FlushStep

    /// The attempt connected now; `nil` while not connected.
    var connectedAttempt: ConnectionStateMachine.Attempt? {
        guard case .connected(let attempt) = lifecycle.state else { return nil }
        return attempt
    }

    // MARK: - Sends

    /// A `send`: whether it may skip the queue (connected, nothing older waiting).
    func sendDirectly() throws(ConnectionError) -> Bool {
        _ = try lifecycle.command(.send)
        return commands.canExecuteDirectly(connected: connectedAttempt)
    }

    /// Queues send `id`; `true` when the caller starts a flush.
    mutating func enqueueSend(_ id: UInt64, _ event: String, _ payload: JSONValue, waiter: Waiter) throws(ConnectionError) -> Bool {
        _ = try lifecycle.command(.send)
        return try commands.enqueueSend(id, event, payload, waiter: waiter, connected: connectedAttempt)
    }

    /// A queued send's caller gave up: its waiter, to resume with `cancelled` (`nil` once it left the queue).
    mutating func cancelSend(_ id: UInt64) -> Waiter? {
        commands.cancelSend(id)
    }

    // MARK: - Requests

    /// `request`: registered as `id`, handed to the driver at once when it may skip the queue.
    mutating func request(_ id: UInt64, _ request: PendingRequest) throws(ConnectionError) -> RequestStart {
        _ = try lifecycle.command(.request)
        return try commands.request(id, request, connected: connectedAttempt)
    }

    /// The driver took `request`; `end` ends the driver's part (see ``CommandLane/Taken``).
    mutating func requestStarted(_ request: DriverRequest, end: @escaping @Sendable () -> Void) -> CommandLane<Waiter>.Taken {
        commands.requestStarted(request, end: end, connected: connectedAttempt)
    }

    /// The driver refused `request`, writing nothing: back in the queue (see ``CommandLane/Refusal``).
    mutating func requestRefused(_ request: DriverRequest) -> CommandLane<Waiter>.Refusal {
        commands.requestRefused(request, connected: connectedAttempt)
    }

    /// Request `id` ended (answered, failed, expired, cancelled): what was kept for it, whose
    /// driver part to end (`nil` when it had ended already).
    mutating func finishRequest(_ id: UInt64) -> PendingRequest? {
        commands.finishRequest(id)
    }

    // MARK: - Flush

    /// The next queued command, oldest first, while connected.
    mutating func nextFlushStep() -> FlushStep {
        commands.nextFlushStep(connected: connectedAttempt)
    }

    /// The transport refused the flush's send `id`: see ``CommandLane/sendRefused(_:_:_:waiter:released:connected:)``.
    mutating func sendRefused(_ id: UInt64, _ event: String, _ payload: JSONValue, waiter: Waiter) -> CommandLane<Waiter>.SendRefusal {
        let released = if case .released = lifecycle.state { true } else { false }
        return commands.sendRefused(id, event, payload, waiter: waiter, released: released, connected: connectedAttempt)
    }

    /// Whether the caller should start a flush: connected, something queued, none running.
    mutating func claimFlush() -> Bool {
        commands.claimFlush(connected: connectedAttempt)
    }
}
