/// A network monitor you drive by hand: for tests and previews (a path change on a test clock,
/// an unsatisfied path without touching the machine's network).
public final class ManualNetworkMonitor: NetworkMonitor {
    private let broadcast: PathBroadcast

    /// A monitor whose current path is `path`.
    public init(_ path: NetworkPath = .satisfied) {
        broadcast = PathBroadcast(path: path)
    }

    /// The current path.
    public var path: NetworkPath { broadcast.path ?? .satisfied }

    /// Reports `path` to every watcher (even when it equals the current one: a new address on the
    /// same interface is a change a caller may want to simulate).
    public func update(_ path: NetworkPath) {
        broadcast.report(path, always: true)
    }

    /// Calls `handler` with the current path, then with each ``update(_:)``, in order.
    public func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation {
        broadcast.observe(handler)
    }

    /// The current path, then each ``update(_:)``.
    public func paths() -> AsyncStream<NetworkPath> {
        broadcast.paths()
    }
}
