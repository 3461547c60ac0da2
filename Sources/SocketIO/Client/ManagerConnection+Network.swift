import SwitchboardCore
import NIOCore
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import SocketIOProtocol
import WebSocketClient

extension ManagerConnection {
    /// Starts following the network monitor, once (from the first session on).
    func watchNetworkIfNeeded() {
        guard let monitor = configuration.networkMonitor else { return }
        guard transition({ $0.claimNetworkWatch() }) else { return }
        // Each path is handed to the manager's event loop, in order: no task per manager
        // waiting on the monitor, and the monitor's thread never runs the manager's work.
        let eventLoop = self.eventLoop
        let observation = monitor.observe { [weak self] path in
            guard let manager = self else { return }
            eventLoop.execute { manager.pathChanged(path) }
        }
        // Closed while the observation started: nothing to watch for any more.
        if !transition({ $0.keep(observation) }) { observation.cancel() }
    }

    private func pathChanged(_ path: NetworkPath) {
        let rememberUpgrade = configuration.rememberUpgrade
        let action = transition { $0.pathChanged(path, rememberUpgrade: rememberUpgrade) }
        logger.debug("network path", metadata: ["socketio.path": "\(path)"])
        switch action {
        case .none:
            return
        case .attemptNow(let attempt, let open):
            let timer = transition { $0.takeReconnectTimer() }
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
        Task { [weak self] in
            let source = await Self.probeRoute(toward: address)
            self?.transition { $0.record(source: source, of: session) }
        }
    }

    /// After a path change: when session `session` would now leave from another local address
    /// (or has no route), its connection is dead whatever the socket says: close it and
    /// reconnect at once, recovering the session on the server.
    private func checkRoute(of session: Int) {
        let address = endpoint.address
        Task { [weak self] in
            let now = await Self.probeRoute(toward: address)
            guard let self else { return }
            let moved = self.transition { $0.routeMoved(of: session, now: now) }
            guard let (engine, was) = moved else { return }
            self.logger.info("the network path moved: reconnecting", metadata: [
                "socketio.from": "\(was ?? "none")", "socketio.to": "\(now ?? "no route")",
            ])
            engine.fail(.transportError(Self.pathChangedDetail))
        }
    }

    /// ``RouteProbe/sourceAddress(toward:port:)`` on NIO's thread pool for blocking calls: its
    /// name resolution can block for as long as a DNS timeout, and on the cooperative pool (as
    /// many threads as cores) that would stall every task of the app meanwhile.
    static func probeRoute(toward address: ServerAddress) async -> String? {
        let source = try? await NIOThreadPool.singleton.runIfActive {
            RouteProbe.sourceAddress(toward: address.host, port: address.port)
        }
        return source ?? nil
    }

    /// The reason a session closed because its route moved.
    static let pathChangedDetail = "the network path changed"
}
