import SwitchboardCore
public import Logging
import NIOConcurrencyHelpers

/// Keeps pooled connections in the state their leases call for. On an interval (on an injected
/// clock) and whenever a lease is taken or given back, it scans the pool and hands each
/// connection, with whether it is occupied, to a chain of ``ConnectionRule``s; the first rule
/// that returns an action wins, and the keeper carries it out.
///
/// Default rules (``defaultRules``), in order:
/// 0. ``SuspendedAppRule``: the app suspended past its grace → occupied connections suspended
///    (their sessions kept for recovery) and not reconnected until it resumes;
/// 1. ``ReconnectOccupiedRule``: occupied and `disconnected` → reconnect (`reconnecting`);
/// 2. ``DisconnectUnoccupiedRule``: not occupied and `connected` → disconnect;
/// 3. ``ReleaseUnoccupiedRule``: not occupied and `disconnected` → release, and out of the pool.
///
/// ```swift
/// let manager = ConnectionManager(rules: [IdleGraceRule(grace: .seconds(10))] + ConnectionKeeper.defaultRules)
/// for await event in manager.keeper.events() { print(event) }
/// ```
///
/// After an action succeeds the keeper asks the rules about that connection again at once (at
/// most three steps per scan), so an unleased connection is disconnected and released in one
/// scan. After a failure it waits for the next scan: while a server is down, reconnection is
/// tried once per interval.
///
/// Concurrency: a scan copies the pool under the pool's lock, then evaluates rules and acts with
/// no lock held. Each connection is worked on in its own child task, so a slow action (a
/// reconnect waiting for its timeout) never holds up the others; the interval loop does not wait
/// for a scan to end. A connection with an action in flight is skipped by other scans; if a lease
/// changed meanwhile, it is scanned again when the action ends.
public final class ConnectionKeeper: Sendable {
    /// The rules the default ``ConnectionManager`` uses, in order.
    public static var defaultRules: [any ConnectionRule] {
        [SuspendedAppRule(), ReconnectOccupiedRule(), DisconnectUnoccupiedRule(), ReleaseUnoccupiedRule()]
    }

    /// The chain, first rule first.
    public let rules: [any ConnectionRule]
    /// How often the keeper scans on its own.
    public let scanInterval: Duration
    let pool: ConnectionPool
    let clock: any Clock<Duration>
    let logger: Logger

    private struct State: Sendable {
        var machine = KeeperStateMachine()
        var loop: Task<Void, Never>?
        var observers = ObserverSet<KeeperEvent>()
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// A keeper for `pool` (usually made by a ``ConnectionManager``).
    public init(
        pool: ConnectionPool,
        rules: [any ConnectionRule] = ConnectionKeeper.defaultRules,
        scanInterval: Duration = .seconds(2),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger? = nil
    ) {
        let logger = logger ?? .disabled("switchboard.keeper")
        self.pool = pool
        self.rules = rules
        self.scanInterval = scanInterval
        self.clock = clock
        self.logger = logger
    }

    /// Starts scanning every ``scanInterval`` (idempotent; a stopped keeper stays stopped).
    public func start() {
        state.withLockedValue { state in
            guard state.machine.start() else { return }
            let clock = self.clock, interval = self.scanInterval
            state.loop = Task { [weak self] in
                while !Task.isCancelled {
                    do {
                        try await clock.sleep(for: interval)
                    } catch {
                        return
                    }
                    guard let self else { return }
                    // Not awaited: a slow action must not delay the next interval.
                    self.state.withLockedValue { $0.machine.intervalScanScheduled() }
                    Task { await self.scan(.interval) }
                }
            }
        }
    }

    /// Stops the interval scans (lease changes no longer trigger scans either) and ends the
    /// ``events()`` streams.
    public func stop() {
        let (loop, observers) = state.withLockedValue { state in
            _ = state.machine.stop()
            defer { state.loop = nil }
            return (state.loop, state.observers.takeAll())
        }
        loop?.cancel()
        for observer in observers { observer.finish() }
    }

    /// What the keeper does from now on, until it is stopped (``stop()``, or the manager's
    /// ``ConnectionManager/shutdown()``); a stopped keeper's stream ends at once.
    public func events() -> AsyncStream<KeeperEvent> {
        observerStream(of: self, \.state, \.observers)
    }

    /// Whether ``stop()`` was called.
    private var isStopped: Bool { state.withLockedValue { $0.machine.loop == .stopped } }

    /// Scans the pool now and returns when every action the scan started has finished.
    public func scan() async {
        await scan(.manual)
    }

    /// A lease was taken or given back (or the app's lifecycle or the network path changed):
    /// scan soon (one scan for a burst of changes).
    func leaseChanged() {
        guard state.withLockedValue({ $0.machine.requestScan() }) else { return }
        Task { await self.scan(.leaseChanged) }
    }

    func scan(_ trigger: KeeperStateMachine.Trigger) async {
        state.withLockedValue { $0.machine.scanStarting(trigger) }
        let snapshots = pool.snapshots()
        await withTaskGroup(of: Void.self) { group in
            for snapshot in snapshots {
                let id = snapshot.connection.id
                let claim = state.withLockedValue { $0.machine.claim(id, trigger: trigger) }
                switch claim {
                case .skip: continue
                case .evaluate: group.addTask { await self.keep(snapshot) }
                }
            }
        }
        publish(.scanFinished(connections: snapshots.count))
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            guard state.machine.scanEnded() else { return [] }
            defer { state.settledWaiters = [] }
            return state.settledWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no scan is scheduled or running and no action is in flight (for tests that
    /// move a test clock: a scan still working on a connection would skip it at the next interval).
    func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state -> Bool in
                if state.machine.isSettled { return true }
                state.settledWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The rules' verdict on one connection: the first action any rule returns.
    public func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
        for rule in rules {
            if let action = rule.action(for: snapshot) { return action }
        }
        return nil
    }

    /// Asks the rules about one connection and acts, again after each success that moved its
    /// state (three steps at most): an action that left the state as it was (a custom one, a
    /// ping) would only be chosen again.
    private func keep(_ first: ConnectionSnapshot) async {
        let id = first.connection.id
        var next: ConnectionSnapshot? = first
        var steps = 0
        while let snapshot = next, steps < 3 {
            next = nil
            if snapshot.state == .released {
                // Released behind the keeper's back: it has no business in the pool.
                if pool.removeIfUnoccupied(id) { publish(.removed(id)) }
                break
            }
            guard let action = action(for: snapshot) else { break }
            if case .keep = action { break }
            guard !isStopped else { break }  // stopped meanwhile: the manager's shutdown takes over
            steps += 1
            if await perform(action, on: snapshot) { next = pool.snapshot(of: id).flatMap { $0.state == snapshot.state ? nil : $0 } }
        }
        let finish = state.withLockedValue { $0.machine.finish(id) }
        switch finish {
        case .done: return
        case .rescan: leaseChanged()
        }
    }

    /// Carries out `action`; whether it succeeded.
    private func perform(_ action: KeeperAction, on snapshot: ConnectionSnapshot) async -> Bool {
        let connection = snapshot.connection
        var removed = false
        do {
            switch action {
            case .keep:
                return true
            case .connect:
                try await connection.connect()
            case .disconnect:
                try await connection.disconnect()
            case .suspend:
                try await connection.suspend()
            case .release:
                guard pool.removeIfUnoccupied(connection.id) else {
                    publish(.acted(connection.id, action: action.name, from: snapshot.state, failure: "leased again; kept"))
                    return false
                }
                removed = true
                try await connection.release()
            case .custom(_, let body):
                try await body(connection)
            }
            publish(.acted(connection.id, action: action.name, from: snapshot.state, failure: nil))
            if removed { publish(.removed(connection.id)) }
            return true
        } catch {
            publish(.acted(connection.id, action: action.name, from: snapshot.state, failure: "\(error)"))
            if removed { publish(.removed(connection.id)) }
            return false
        }
    }

    private func publish(_ event: KeeperEvent) {
        switch event {
        case .acted(_, _, _, .some): logger.info("\(event)")
        case .acted, .removed: logger.debug("\(event)")
        case .scanFinished: logger.trace("\(event)")
        }
        state.withLockedValue { state in
            state.observers.yield(event)
        }
    }
}
