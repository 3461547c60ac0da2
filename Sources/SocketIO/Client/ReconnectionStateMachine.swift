/// When a manager reconnects, as a value type (socket.io's `Manager.reconnect`, `onclose`,
/// `maybeReconnectOnOpen`).
///
/// `idle` → (session lost or first open failed) `waiting(n)` → (delay passed) `attempting(n)` →
/// (opened) `idle`, or (failed) `waiting(n+1)` … until `maxAttempts` → give up. The app's
/// disconnect stops it from any state.
///
/// The network path steers it (``networkChanged(available:)``): while no path is available a
/// loss or an elapsed delay waits in `waitingForNetwork` without spending an attempt; when a
/// path comes back, a waiting attempt starts at once instead of after its delay.
struct ReconnectionStateMachine: Sendable {
    enum State: Sendable, Equatable {
        case idle
        /// A delay runs before attempt `attempt`.
        case waiting(attempt: Int)
        /// Attempt `attempt` is opening a session.
        case attempting(attempt: Int)
        /// No network path: the next attempt (`attempt`, when its number is already taken)
        /// starts when one comes back.
        case waitingForNetwork(attempt: Int?)
    }

    enum LossAction: Sendable, Equatable {
        /// Wait `delay`, then make attempt `attempt`.
        case schedule(delay: Duration, attempt: Int)
        /// `failedAttempt` failed; wait `delay`, then make attempt `attempt`.
        case retry(failedAttempt: Int, delay: Duration, attempt: Int)
        /// Attempts are exhausted (the last one, if any, failed): stop and tell the app.
        case giveUp(failedAttempt: Int?)
        /// No network path: wait for one (`failedAttempt` failed, if any); no attempt is spent.
        case waitForNetwork(failedAttempt: Int?)
        /// Nothing to do (reconnection off, nobody wants a connection, or already waiting).
        case none
    }

    private(set) var state: State = .idle
    private var backoff: Backoff
    let enabled: Bool
    let maxAttempts: Int?
    /// Whether the last reported network path could carry traffic.
    private(set) var networkAvailable = true

    init(enabled: Bool, maxAttempts: Int?, backoff: Backoff) {
        self.enabled = enabled
        self.maxAttempts = maxAttempts.map { max($0, 0) }
        self.backoff = backoff
    }

    /// Whether a delay or the network is awaited (a new session waits for it rather than
    /// opening now).
    var isWaiting: Bool {
        switch state {
        case .waiting, .waitingForNetwork: true
        case .idle, .attempting: false
        }
    }

    /// The session closed, or could not be opened, without the app asking.
    /// - Parameters:
    ///   - wantsConnection: whether any socket still wants a connection.
    ///   - random: a draw in `0..<1` for the backoff's jitter.
    ///   - immediately: the first attempt goes without a delay (the session was closed because
    ///     the network path changed under it: the new path is there now).
    mutating func connectionLost(wantsConnection: Bool, random: Double, immediately: Bool = false) -> LossAction {
        switch state {
        case .waiting, .waitingForNetwork:
            return .none
        case .idle:
            guard enabled, wantsConnection else { return .none }
            return next(failed: nil, random: random, immediately: immediately)
        case .attempting(let attempt):
            guard enabled, wantsConnection else {
                stop()
                return .none
            }
            return next(failed: attempt, random: random, immediately: immediately)
        }
    }

    private mutating func next(failed: Int?, random: Double, immediately: Bool) -> LossAction {
        if let maxAttempts, backoff.attempts >= maxAttempts {
            stop()
            return .giveUp(failedAttempt: failed)
        }
        guard networkAvailable else {
            state = .waitingForNetwork(attempt: nil)
            return .waitForNetwork(failedAttempt: failed)
        }
        let computed = backoff.nextDelay(random: random)
        let delay: Duration = immediately ? .zero : computed
        let attempt = backoff.attempts
        state = .waiting(attempt: attempt)
        if let failed { return .retry(failedAttempt: failed, delay: delay, attempt: attempt) }
        return .schedule(delay: delay, attempt: attempt)
    }

    /// The delay for `attempt` passed: returns whether to open a session now (not while no
    /// network path is available: then the attempt waits for one).
    mutating func delayElapsed(attempt: Int) -> Bool {
        guard state == .waiting(attempt: attempt) else { return false }
        guard networkAvailable else {
            state = .waitingForNetwork(attempt: attempt)
            return false
        }
        state = .attempting(attempt: attempt)
        return true
    }

    /// The network path changed. Returns the attempt to make now, when one was waiting (for its
    /// delay or for the network) and a path is available.
    mutating func networkChanged(available: Bool) -> Int? {
        networkAvailable = available
        guard available else { return nil }
        switch state {
        case .waiting(let attempt), .waitingForNetwork(let attempt?):
            state = .attempting(attempt: attempt)
            return attempt
        case .waitingForNetwork(nil):
            _ = backoff.nextDelay(random: 0)
            state = .attempting(attempt: backoff.attempts)
            return backoff.attempts
        case .idle, .attempting:
            return nil
        }
    }

    /// A session opened. Returns the attempt that succeeded, if this was a reconnection.
    mutating func opened() -> Int? {
        defer { stop() }
        if case .attempting(let attempt) = state { return attempt }
        return nil
    }

    /// The app closed the connection (or a refusal ended it for good): no more attempts, and the
    /// next loss starts counting from the first delay again.
    mutating func stop() {
        state = .idle
        backoff.reset()
    }
}
