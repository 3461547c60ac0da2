import SwitchboardCore
import SocketIOProtocol

extension DriverConnection {
    /// A command waiting in the offline queue.
    enum QueuedCommand: Sendable {
        /// A send; its caller waits on `continuation` until it was handed to the driver.
        case send(String, JSONValue, CheckedContinuation<Void, any Error>)
        /// A request; its caller, deadline and payload are in ``Inner/requests``.
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
        var driverTask: Task<Void, Never>?
    }

    /// Everything the lock guards.
    struct Inner: Sendable {
        var machine = ConnectionStateMachine()
        /// Change it only through the methods below, so queue observers hear of every change.
        private(set) var queue: CommandQueue<QueuedCommand>
        var queueObservers = ObserverSet<Int>()
        /// Whether a flush task is running the queue (at most one does, so order holds).
        var flushing = false
        var requests: [UInt64: PendingRequest] = [:]
        var connectWaiters: [UInt64: (attempt: ConnectionStateMachine.Attempt, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var subscribers = KeyedObserverSets<String, JSONValue>()
        var requestSubscribers = KeyedObserverSets<String, IncomingRequest>()
        var stateObservers = ObserverSet<ConnectionState>()
        /// The last driver operation (open or close); the next one starts after it.
        var driverTail: Task<Void, Never>?
        /// The open in flight, cancelled when the app gives it up.
        var openTask: (attempt: ConnectionStateMachine.Attempt, task: Task<Void, Never>)?
        /// What the driver said of session recovery when the last open succeeded.
        var recovered: Bool?
        /// Why the last open failed or the transport was lost; cleared by a successful open.
        var lastError: String?
        private var nextID: UInt64 = 0

        init(queue: CommandQueue<QueuedCommand>) {
            self.queue = queue
        }

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        mutating func enqueue(_ command: QueuedCommand, id: UInt64) throws(ConnectionError) {
            try queue.enqueue(command, id: id)
            queueChanged()
        }

        mutating func putBackQueued(_ command: QueuedCommand, id: UInt64) {
            queue.putBack(command, id: id)
            queueChanged()
        }

        mutating func popQueued() -> (id: UInt64, command: QueuedCommand)? {
            let next = queue.popFirst()
            if next != nil { queueChanged() }
            return next
        }

        mutating func removeQueued(_ id: UInt64) -> QueuedCommand? {
            let command = queue.remove(id)
            if command != nil { queueChanged() }
            return command
        }

        mutating func drainQueue() -> [QueuedCommand] {
            let drained = queue.removeAll().map(\.command)
            if !drained.isEmpty { queueChanged() }
            return drained
        }

        /// Yields under the lock, so observers see counts in order (yielding runs no user code).
        private func queueChanged() {
            queueObservers.yield(queue.count)
        }

        mutating func takeConnectWaiters(for attempt: ConnectionStateMachine.Attempt) -> [CheckedContinuation<Void, any Error>] {
            let matching = connectWaiters.filter { $0.value.attempt == attempt }
            for key in matching.keys { connectWaiters.removeValue(forKey: key) }
            return matching.values.map(\.continuation)
        }

        /// Removes and returns the requests the driver is carrying.
        mutating func takeInFlightRequests() -> [UInt64: PendingRequest] {
            let inFlight = requests.filter { $0.value.inFlight }
            for key in inFlight.keys { requests.removeValue(forKey: key) }
            return inFlight
        }

        /// Whether the caller should start a flush: connected, something queued, none running.
        mutating func claimFlush() -> Bool {
            guard case .connected = machine.state, !flushing, !queue.isEmpty else { return false }
            flushing = true
            return true
        }

        /// Whether a new command may skip the queue: connected and nothing older waiting.
        var canExecuteDirectly: Bool {
            guard case .connected = machine.state else { return false }
            return queue.isEmpty && !flushing
        }
    }
}
