import Logging
import NIOConcurrencyHelpers

extension Manager {
    /// The app is going to the background: after `grace` (on the configured clock) the
    /// connection closes cleanly, without leaving the namespaces, so a server with connection
    /// state recovery keeps each socket's session. Meanwhile and until ``resume()``, the sockets
    /// stay wanted: emits wait in their buffers, and no reconnection is attempted.
    ///
    /// A ``resume()`` within the grace keeps the connection as it is.
    public func suspend(after grace: Duration = .zero) {
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

    /// The app is back: reconnects at once if ``suspend(after:)`` closed the connection (the
    /// sockets recover their sessions where the server allows, and send what they buffered).
    public func resume() {
        let rememberUpgrade = configuration.rememberUpgrade
        let (action, timer) = transition { $0.resume(rememberUpgrade: rememberUpgrade) }
        timer?.cancel()
        guard let action else { return }
        logger.debug("resuming: reconnecting")
        perform(action)
    }

    /// Whether the manager is suspended (its grace over, the connection closed until resumed).
    public var isSuspended: Bool {
        transition { $0.machine.lifecycle == .suspended }
    }

    private func graceElapsed(_ token: Int) {
        guard let (action, engine, timer) = transition({ $0.graceElapsed(token) }) else { return }
        timer?.cancel()
        logger.info("suspended: connection closed until resumed")
        engine?.close()
        guard case .close(let wasOpen) = action else { return }
        if wasOpen { publish(.close(.transportClose)) }
        let sockets = transition { $0.sockets.all }
        for socket in sockets { socket.engineClosed(.transportClose) }
    }
}
