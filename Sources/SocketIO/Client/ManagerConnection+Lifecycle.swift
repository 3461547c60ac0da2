import Logging
import NIOConcurrencyHelpers

extension ManagerConnection {
    /// ``Manager/suspend(after:)``.
    func suspend(after grace: Duration) {
        let token = transition { $0.machine.suspend() }
        logger.debug("suspending", metadata: ["socketio.grace": "\(grace)"])
        guard grace > .zero else {
            graceElapsed(token)
            return
        }
        let timer = schedule(after: grace) { $0.graceElapsed(token) }
        let previous = transition { $0.keepSuspendTimer(timer) }
        previous?.cancel()
    }

    /// ``Manager/resume()``.
    func resume() {
        let rememberUpgrade = configuration.rememberUpgrade
        let (action, timer) = transition { $0.resume(rememberUpgrade: rememberUpgrade) }
        timer?.cancel()
        guard let action else { return }
        logger.debug("resuming: reconnecting")
        perform(action)
    }

    private func graceElapsed(_ token: Int) {
        guard let (action, engine, timer) = transition({ $0.graceElapsed(token) }) else { return }
        timer?.cancel()
        logger.info("suspended: connection closed until resumed")
        engine?.close()
        guard case .close(let wasOpen) = action else { return }
        if wasOpen { publish(.close(.transportClose)) }
        let sockets = transition { $0.sockets.all }
        for socket in sockets { socket.connection.engineClosed(.transportClose) }
    }
}
