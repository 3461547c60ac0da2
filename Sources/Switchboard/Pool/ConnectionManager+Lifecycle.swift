import protocol SwitchboardCore.NetworkMonitor
import struct SwitchboardCore.NetworkPath

extension ConnectionManager {
    /// The app is going to the background. After `grace` (on the manager's clock) the keeper
    /// suspends every leased connection (``SuspendedAppRule``): closed the way a lost connection
    /// closes, so servers with session recovery keep their sessions, and kept down until
    /// ``resume()``. Sends and requests made meanwhile wait in each connection's queue.
    /// A ``resume()`` within the grace leaves every connection as it is.
    public func suspend(after grace: Duration = .seconds(5)) {
        pool.suspension.suspend(grace: grace)
        keeper.leaseChanged()
        let clock = pool.clock
        Task { [weak self] in
            try? await clock.sleep(for: grace)
            self?.keeper.leaseChanged()
        }
    }

    /// The app is back: the keeper reconnects the suspended connections at once; each recovers
    /// its session where the server kept it (``Connection/recovered``) and runs its queue.
    public func resume() {
        pool.suspension.resume()
        keeper.leaseChanged()
    }

    /// Where the app's lifecycle has the manager.
    public var appLifecycle: AppLifecycle { pool.suspension.current }

    /// Follows `monitor`: when a network path becomes available (or changes), the keeper scans
    /// at once, so a leased connection that dropped is reconnected now rather than at the next
    /// interval.
    func watchNetwork(_ monitor: any NetworkMonitor) -> Task<Void, Never> {
        Task { [weak self] in
            var last: NetworkPath?
            for await path in monitor.paths() {
                guard let self else { return }
                defer { last = path }
                guard let previous = last, previous != path, path.status == .satisfied else { continue }
                self.keeper.leaseChanged()
            }
        }
    }
}
