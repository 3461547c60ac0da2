import SwitchboardCore
public import Foundation
public import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol

/// The one ``Connection`` implementation: the state machine, the offline command queue, the
/// subscriptions and the request deadlines, over a ``ConnectionDriver`` that only moves messages
/// (Socket.IO, plain WebSocket, or `InMemoryDriver` from `SwitchboardTesting`).
///
/// ```swift
/// let connection = DriverConnection(
///     configuration: ConnectionConfiguration(url: url),
///     driver: InMemoryDriver(server: server)
/// )
/// let news = connection.events(named: "news")   // takes effect once connected
/// Task { try await connection.send("hello", "world") }  // queued until connected
/// try await connection.connect()
/// ```
///
/// Behaviour worth knowing:
/// - `send` returns once the driver accepted the event; while not connected it waits in the
///   queue (first in, first out) and returns when it was sent, or throws (``ConnectionError/released``,
///   ``ConnectionError/cancelled``). To fire and forget, call it in a `Task`.
/// - `request` deadlines count from the call, queued time included.
/// - Queued commands run one at a time in order; a queued request holds the commands behind it
///   until it is answered (or times out), so the server sees them in exactly the order they were made.
/// - When the transport drops, requests already handed to the driver fail with
///   ``ConnectionError/connectionLost(_:)`` (their reply can no longer arrive) and are not resent;
///   sends the driver accepted are not resent either. Queued commands stay queued, and so does
///   a command the driver refused because its transport was already down (nothing was sent).
/// - Releasing fails every queued command with ``ConnectionError/released`` and ends every
///   event and state sequence.
///
/// Every method is safe from any task. Nothing runs under the connection's lock except state
/// bookkeeping and yields to async sequences; driver calls run after it is released.
public final class DriverConnection: Connection {
    /// The server.
    public let url: URL
    /// This connection's identity in the pool and the keeper's events.
    public let id: ConnectionID
    /// What the connection was made for.
    public let configuration: ConnectionConfiguration
    let driver: any ConnectionDriver
    let clock: any Clock<Duration>
    let logger: Logger
    /// Everything that changes, guarded by one lock (see ``transition(_:)``).
    let inner: NIOLockedValueBox<Machine>
    /// `request` callers waiting for their answer, with their deadlines.
    let replies = PendingReplies<UInt64, Response, ConnectionError>()

    /// A connection over `driver`, in state `created` (call ``connect()``, or lease it from a
    /// ``ConnectionManager`` so the keeper does).
    ///
    /// - Parameters:
    ///   - configuration: what the connection is for (its URL, queue limit, default request timeout).
    ///   - driver: the technology that moves the messages.
    ///   - clock: measures request deadlines; inject a test clock in tests.
    ///   - logger: where the connection logs state changes (silent by default).
    public init(
        configuration: ConnectionConfiguration,
        driver: any ConnectionDriver,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger? = nil
    ) {
        self.url = configuration.url
        self.id = .next()
        self.configuration = configuration
        self.driver = driver
        self.clock = clock
        var logger = logger ?? .disabled("switchboard.connection")
        logger[metadataKey: "switchboard.connection"] = "\(id)"
        self.logger = logger
        self.inner = NIOLockedValueBox(Machine(queueLimit: configuration.maxQueuedCommands))
    }

    deinit {
        // Dropped without a release: close what the driver may still hold open.
        if read(\.connectionState) != .released {
            let driver = self.driver
            Task { await driver.close() }
        }
    }

    /// The state now (``ConnectionState``).
    public var state: ConnectionState {
        read(\.connectionState)
    }

    /// Whether the last connect resumed the server's session (see ``Connection/recovered``).
    public var recovered: Bool? {
        read(\.recovered)
    }

    /// Why the connection last failed to open or was lost (see ``Connection/lastError``).
    public var lastError: String? {
        read(\.lastError)
    }

    /// The driver's transport while connected (see ``Connection/transport``).
    public var transport: String? {
        guard state == .connected else { return nil }
        return driver.transportName
    }

    /// ``transport`` now, then after each state change and each change the driver reports
    /// (``ConnectionDriver/transportChanges()``: an upgrade, a failover switch), until released.
    public func transportChanges() -> AsyncStream<String?> {
        let states = stateChanges()
        let driver = self.driver
        let (changes, continuation) = AsyncStream<String?>.makeStream()
        let relay = Task { [weak self] in
            var driverWatch: Task<Void, Never>?
            for await state in states {
                continuation.yield(self?.transport)
                driverWatch?.cancel()
                driverWatch = nil
                guard state == .connected else { continue }
                let driverChanges = driver.transportChanges()
                driverWatch = Task { [weak self] in
                    for await _ in driverChanges { continuation.yield(self?.transport) }
                }
            }
            driverWatch?.cancel()
            continuation.finish()
        }
        continuation.onTermination = { _ in relay.cancel() }
        return changes
    }

    /// How many commands wait in the offline queue.
    public var queuedCommandCount: Int {
        read(\.commands.queue.count)
    }

    /// How many commands wait in the offline queue: now, then after every change, until the
    /// connection is released (for an "3 messages waiting" indicator).
    public func queuedCommandCounts() -> AsyncStream<Int> {
        observerStream(of: self, \.inner, \.commands.queueObservers) { $0.commands.queue.count }
    }

    /// The state machine, with this connection's waiters.
    typealias Machine = DriverConnectionStateMachine<CheckedContinuation<Void, any Error>, CheckedContinuation<Void, Never>>

    /// Runs one event of the machine under the lock and returns what to do after it. State
    /// observers hear a change of the public state inside it, so they see changes in order
    /// (yielding runs no user code).
    func transition<T>(_ event: (inout Machine) -> T) -> T {
        let (result, change) = inner.withLockedValue { machine -> (T, (ConnectionState, ConnectionState)?) in
            let before = machine.connectionState
            let result = event(&machine)
            let after = machine.connectionState
            guard before != after else { return (result, nil) }
            machine.stateObservers.yield(after)
            return (result, (before, after))
        }
        if let (before, after) = change {
            logger.debug("state \(before) → \(after)")
        }
        return result
    }

    /// Reads one value of the machine under the lock.
    func read<T>(_ value: (Machine) -> T) -> T {
        inner.withLockedValue { value($0) }
    }

    // MARK: - Connecting

    /// Opens the driver and returns once connected; then runs the queued commands in order.
    public func connect() async throws {
        let waiter = transition { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let action = transition { $0.connect(waiter, waiter: continuation) }
                if let failure = action.failure { continuation.resume(throwing: failure) }
                run(action.run)
                if Task.isCancelled { cancelConnectWaiter(waiter) }
            }
        } onCancel: {
            self.cancelConnectWaiter(waiter)
        }
    }

    /// A cancelled `connect()` caller stops waiting; the attempt goes on for the others.
    private func cancelConnectWaiter(_ waiter: UInt64) {
        transition { $0.cancelConnect(waiter) }?.resume(throwing: ConnectionError.cancelled)
    }

    /// Starts a driver operation the machine scheduled (they run one at a time, in order).
    func run(_ job: Machine.DriverJob?) {
        switch job {
        case nil:
            return
        case .open(let attempt):
            let task = Task { await self.runOpen(attempt) }
            if transition({ $0.openStarted(attempt, task: task) }) { task.cancel() }
        case .close(let keepingSession, let done):
            let driver = self.driver
            Task { [weak self] in
                if keepingSession { await driver.suspend() } else { await driver.close() }
                done?.resume()
                self?.run(self?.transition { $0.driverJobFinished() })
            }
        }
    }

    private func runOpen(_ attempt: ConnectionStateMachine.Attempt) async {
        do {
            // Given up before it started (the app disconnected meanwhile): do not open at all.
            try Task.checkCancellation()
            try await driver.open { [weak self] event in
                self?.driverEvent(event, attempt: attempt)
            }
            openFinished(attempt, error: nil)
        } catch {
            openFinished(attempt, error: error)
        }
    }

    private func openFinished(_ attempt: ConnectionStateMachine.Attempt, error: (any Error)?) {
        let recovered = error == nil ? driver.recovered : nil
        let finished = transition {
            $0.openFinished(attempt, recovered: recovered, failure: error.map(ConnectionError.init(openFailure:)))
        }
        if let failure = finished.failure {
            logger.debug("connecting failed", metadata: ["switchboard.error": "\(failure)"])
            for waiter in finished.waiters { waiter.resume(throwing: failure) }
        } else {
            logger.debug("connected", metadata: ["switchboard.attempt": "\(attempt.number)"])
            for waiter in finished.waiters { waiter.resume() }
        }
        if finished.flush { startFlush() }
        run(finished.run)
    }
}
