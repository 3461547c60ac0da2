/// The keeper's bookkeeping as a value: whether its interval loop runs, which connections have
/// an action in flight, and which of those a lease change touched meanwhile (they are looked at
/// again when the action ends). No I/O, no locks, no clocks.
struct KeeperStateMachine: Sendable {
    /// Why a scan runs.
    enum Trigger: Sendable, Hashable {
        /// The interval passed.
        case interval
        /// A lease was taken or given back.
        case leaseChanged
        /// Someone called ``ConnectionKeeper/scan()``.
        case manual
    }

    enum Loop: Sendable, Hashable {
        case idle
        case running
        case stopped
    }

    private(set) var loop = Loop.idle
    private(set) var busy: Set<ConnectionID> = []
    private var dirty: Set<ConnectionID> = []
    /// A lease-change scan is asked for and has not started yet: more changes join it.
    private(set) var scanRequested = false
    /// Scans asked for or running (an interval scan counts from when the loop schedules it, a
    /// lease-change scan from when it is requested): zero means the keeper is settled.
    private(set) var scansInFlight = 0

    /// Nothing scheduled, nothing running, nothing in flight on any connection.
    var isSettled: Bool { scansInFlight == 0 }

    /// A lease changed: whether to start a scan (not when one is already waiting to start, so a
    /// burst of lease changes makes one scan; never once stopped).
    mutating func requestScan() -> Bool {
        switch loop {
        case .stopped:
            return false
        case .idle, .running:
            guard !scanRequested else { return false }
            scanRequested = true
            scansInFlight += 1
            return true
        }
    }

    /// The interval loop hands a scan to a task of its own.
    mutating func intervalScanScheduled() {
        scansInFlight += 1
    }

    /// A scan starts (before it looks at the pool): later lease changes need a new one.
    mutating func scanStarting(_ trigger: Trigger) {
        switch trigger {
        case .leaseChanged: scanRequested = false
        case .manual: scansInFlight += 1
        case .interval: break
        }
    }

    /// A scan ended (every action it started has finished): whether the keeper is now settled.
    mutating func scanEnded() -> Bool {
        scansInFlight -= 1
        return isSettled
    }

    /// `start()`: whether to start the interval loop (only from `idle`; a stopped keeper stays stopped).
    mutating func start() -> Bool {
        switch loop {
        case .idle:
            loop = .running
            return true
        case .running, .stopped:
            return false
        }
    }

    /// `stop()`: whether a running loop must be cancelled. From any state the keeper ends stopped.
    mutating func stop() -> Bool {
        let wasRunning = loop == .running
        loop = .stopped
        return wasRunning
    }

    enum ClaimAction: Sendable, Hashable {
        /// Ask the rules and act; the connection is busy until ``finish(_:)``.
        case evaluate
        /// An action on it is in flight: leave it to that one.
        case skip
    }

    /// A scan reached `connection`. A stopped keeper acts no more: a scan asked for before
    /// ``stop()`` that runs after it (a lease change's) must not reconnect what the manager's
    /// shutdown is disconnecting and releasing.
    mutating func claim(_ connection: ConnectionID, trigger: Trigger) -> ClaimAction {
        guard loop != .stopped else { return .skip }
        guard !busy.contains(connection) else {
            // A lease change must be seen once the action ends; interval scans come again anyway
            // (and marking them would turn a failing reconnect into a tight loop).
            switch trigger {
            case .leaseChanged, .manual: dirty.insert(connection)
            case .interval: break
            }
            return .skip
        }
        busy.insert(connection)
        return .evaluate
    }

    enum FinishAction: Sendable, Hashable {
        case done
        /// A lease changed while it was busy: scan again.
        case rescan
    }

    /// The work on `connection` ended.
    mutating func finish(_ connection: ConnectionID) -> FinishAction {
        busy.remove(connection)
        return dirty.remove(connection) == nil ? .done : .rescan
    }
}
