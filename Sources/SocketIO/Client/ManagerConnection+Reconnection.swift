import Logging
import NIOConcurrencyHelpers

extension ManagerConnection {
    /// After a session closed or failed to open without the app asking: start, continue or give
    /// up the reconnection loop (socket.io's backoff; see ``Backoff``).
    func reconnectIfWanted(after reason: EngineCloseReason) {
        let random = configuration.jitter()
        let (action, sockets) = transition { $0.connectionLost(random: random) }
        switch action {
        case .none:
            return
        case .schedule(let delay, let attempt):
            logger.debug("reconnecting", metadata: ["socketio.attempt": "\(attempt)", "socketio.delay": "\(delay)"])
            scheduleAttempt(attempt, after: delay)
        case .retry(let failed, let delay, let attempt):
            logger.debug("reconnection attempt failed", metadata: ["socketio.attempt": "\(failed)", "socketio.reason": "\(reason)"])
            publish(.reconnectError("\(reason)"))
            scheduleAttempt(attempt, after: delay)
        case .waitForNetwork(let failed):
            if let failed {
                logger.debug("reconnection attempt failed", metadata: ["socketio.attempt": "\(failed)", "socketio.reason": "\(reason)"])
                publish(.reconnectError("\(reason)"))
            }
            logger.info("no network path: reconnecting when one is available")
        case .giveUp(let failed):
            if failed != nil { publish(.reconnectError("\(reason)")) }
            logger.warning("reconnection failed: attempts exhausted", metadata: ["socketio.attempts": "\(configuration.reconnectionAttempts ?? 0)"])
            publish(.reconnectFailed)
            for socket in sockets { socket.connection.reconnectionFailed() }
            // Given up on: held no longer (a later `connect()` holds them again).
            transition { $0.letGoAll(sockets) }
        }
    }

    private func scheduleAttempt(_ attempt: Int, after delay: Duration) {
        let timer = schedule(after: delay) { $0.delayElapsed(attempt: attempt) }
        // The app may have stopped the loop while the timer was being made.
        let stale = transition { $0.keepReconnectTimer(timer, attempt: attempt) }
        stale?.cancel()
    }

    private func delayElapsed(attempt: Int) {
        let rememberUpgrade = configuration.rememberUpgrade
        guard let action = transition({
            $0.machine.delayElapsed(attempt: attempt, rememberUpgrade: rememberUpgrade)
        }) else { return }
        publish(.reconnectAttempt(attempt))
        logger.debug("reconnection attempt", metadata: ["socketio.attempt": "\(attempt)"])
        perform(action)
    }
}
