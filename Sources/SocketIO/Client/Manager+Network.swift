import SwitchboardCore
import NIOCore
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import WebSocketClient

extension Manager {
    /// Starts following the network monitor, once (from the first session on).
    func watchNetworkIfNeeded() {
        guard let monitor = configuration.networkMonitor else { return }
        let claimed = inner.withLockedValue { inner -> Bool in
            guard !inner.watchingNetwork else { return false }
            inner.watchingNetwork = true
            return true
        }
        guard claimed else { return }
        // Each path is handed to the manager's event loop, in order: no task per manager
        // waiting on the monitor, and the monitor's thread never runs the manager's work.
        let eventLoop = self.eventLoop
        let observation = monitor.observe { [weak self] path in
            guard let manager = self else { return }
            eventLoop.execute { manager.pathChanged(path) }
        }
        let stale = inner.withLockedValue { inner -> Bool in
            // Closed while the observation started: nothing to watch for any more.
            guard inner.watchingNetwork else { return true }
            inner.networkWatch = observation
            return false
        }
        if stale { observation.cancel() }
    }

    private func pathChanged(_ path: NetworkPath) {
        let rememberUpgrade = configuration.rememberUpgrade
        let action = inner.withLockedValue { inner -> ManagerStateMachine.NetworkAction in
            guard inner.lastPath != path else { return .none }
            inner.lastPath = path
            return inner.machine.networkChanged(available: path.status == .satisfied, rememberUpgrade: rememberUpgrade)
        }
        logger.debug("network path", metadata: ["socketio.path": "\(path)"])
        switch action {
        case .none:
            return
        case .attemptNow(let attempt, let open):
            let timer = inner.withLockedValue { inner in
                defer { inner.reconnectTimer = nil }
                return inner.reconnectTimer
            }
            timer?.cancel()
            logger.info("network path available: reconnecting now", metadata: ["socketio.attempt": "\(attempt)"])
            publish(.reconnectAttempt(attempt))
            perform(open)
        case .checkRoute(let session):
            checkRoute(of: session)
        }
    }

    /// Records the local address session `session` leaves from (when it opens).
    func recordRoute(of session: Int) {
        let address = endpoint.address
        Task.detached { [weak self] in
            let source = RouteProbe.sourceAddress(toward: address.host, port: address.port)
            self?.inner.withLockedValue { inner in
                guard inner.machine.isCurrent(session), inner.sourceAddress?.session != session else { return }
                inner.sourceAddress = (session, source)
            }
        }
    }

    /// After a path change: when session `session` would now leave from another local address
    /// (or has no route), its connection is dead whatever the socket says: close it and
    /// reconnect at once, recovering the session on the server.
    private func checkRoute(of session: Int) {
        let address = endpoint.address
        Task.detached { [weak self] in
            let now = RouteProbe.sourceAddress(toward: address.host, port: address.port)
            guard let self else { return }
            let moved = self.inner.withLockedValue { inner -> (Engine, String?)? in
                guard let recorded = inner.sourceAddress, recorded.session == session else {
                    // Not recorded yet: this is the baseline.
                    if inner.machine.isCurrent(session) { inner.sourceAddress = (session, now) }
                    return nil
                }
                guard recorded.address != now, let engine = inner.engine, inner.machine.routeChanged(session) else { return nil }
                return (engine, recorded.address)
            }
            guard let (engine, was) = moved else { return }
            self.logger.info("the network path moved: reconnecting", metadata: [
                "socketio.from": "\(was ?? "none")", "socketio.to": "\(now ?? "no route")",
            ])
            engine.fail(.transportError(Self.pathChangedDetail))
        }
    }

    /// The reason a session closed because its route moved.
    static let pathChangedDetail = "the network path changed"
}

extension Manager {
    /// The network path the manager last acted on (nil before its first session, or with no
    /// monitor).
    public var networkPath: NetworkPath? { inner.withLockedValue { $0.lastPath } }
}
