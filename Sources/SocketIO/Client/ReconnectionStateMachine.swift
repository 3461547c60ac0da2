/// When a manager reconnects, as a value type (socket.io's `Manager.reconnect`, `onclose`,
/// `maybeReconnectOnOpen`).
///
/// `idle` → (session lost or first open failed) `waiting(n)` → (delay passed) `attempting(n)` →
/// (opened) `idle`, or (failed) `waiting(n+1)` … until `maxAttempts` → give up. The app's
/// disconnect stops it from any state.
struct ReconnectionStateMachine: Sendable {
    enum State: Sendable, Equatable {
        case idle
        /// A delay runs before attempt `attempt`.
        case waiting(attempt: Int)
        /// Attempt `attempt` is opening a session.
        case attempting(attempt: Int)
    }

    enum LossAction: Sendable, Equatable {
        /// Wait `delay`, then make attempt `attempt`.
        case schedule(delay: Duration, attempt: Int)
        /// `failedAttempt` failed; wait `delay`, then make attempt `attempt`.
        case retry(failedAttempt: Int, delay: Duration, attempt: Int)
        /// Attempts are exhausted (the last one, if any, failed): stop and tell the app.
        case giveUp(failedAttempt: Int?)
        /// Nothing to do (reconnection off, nobody wants a connection, or already waiting).
        case none
    }

    private(set) var state: State = .idle
    private var backoff: Backoff
    let enabled: Bool
    let maxAttempts: Int?

    init(enabled: Bool, maxAttempts: Int?, backoff: Backoff) {
        self.enabled = enabled
        self.maxAttempts = maxAttempts.map { max($0, 0) }
        self.backoff = backoff
    }

    /// Whether a delay is running (a new session waits for it rather than opening now).
    var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }

    /// The session closed, or could not be opened, without the app asking.
    /// - Parameters:
    ///   - wantsConnection: whether any socket still wants a connection.
    ///   - random: a draw in `0..<1` for the backoff's jitter.
    mutating func connectionLost(wantsConnection: Bool, random: Double) -> LossAction {
        switch state {
        case .waiting:
            return .none
        case .idle:
            guard enabled, wantsConnection else { return .none }
            return next(failed: nil, random: random)
        case .attempting(let attempt):
            guard enabled, wantsConnection else {
                stop()
                return .none
            }
            return next(failed: attempt, random: random)
        }
    }

    private mutating func next(failed: Int?, random: Double) -> LossAction {
        if let maxAttempts, backoff.attempts >= maxAttempts {
            stop()
            return .giveUp(failedAttempt: failed)
        }
        let delay = backoff.nextDelay(random: random)
        let attempt = backoff.attempts
        state = .waiting(attempt: attempt)
        if let failed { return .retry(failedAttempt: failed, delay: delay, attempt: attempt) }
        return .schedule(delay: delay, attempt: attempt)
    }

    /// The delay for `attempt` passed: returns whether to open a session now.
    mutating func delayElapsed(attempt: Int) -> Bool {
        guard state == .waiting(attempt: attempt) else { return false }
        state = .attempting(attempt: attempt)
        return true
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
