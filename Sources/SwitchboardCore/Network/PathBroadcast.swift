import NIOConcurrencyHelpers

/// What every built-in network monitor keeps: the current path, and whoever watches it — async
/// streams (``NetworkMonitor/paths()``) and observers (``NetworkMonitor/observe(_:)``), each
/// observer getting the paths in order, once, never two calls at once.
final class PathBroadcast: Sendable {
    struct State: Sendable {
        var path: NetworkPath?
        var observers = ObserverSet<NetworkPath>()
        var relays = PathObservers()
    }

    let state: NIOLockedValueBox<State>

    init(path: NetworkPath? = nil) {
        state = NIOLockedValueBox(State(path: path))
    }

    /// The last path reported.
    var path: NetworkPath? { state.withLockedValue { $0.path } }

    /// Sets the first path with `read` unless there is one; `true` when this call set it (the
    /// monitor starts watching then).
    func start(reading read: () -> NetworkPath) -> Bool {
        state.withLockedValue { state in
            guard state.path == nil else { return false }
            state.path = read()
            return true
        }
    }

    /// Hands `path` to every watcher — only when it differs from the last one unless `always`.
    func report(_ path: NetworkPath, always: Bool = false) {
        let changed: ([PathRelay], UInt64)? = state.withLockedValue { state in
            guard always || state.path != path else { return nil }
            state.path = path
            state.observers.yield(path)
            return (state.relays.all, state.relays.advance())
        }
        guard let (relays, version) = changed else { return }
        for relay in relays { relay.deliver(path, version: version) }
    }

    func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation {
        let (id, relay, path, version) = state.withLockedValue { state in
            let (id, relay) = state.relays.add(handler)
            return (id, relay, state.path, state.relays.version)
        }
        if let path { relay.deliver(path, version: version) }
        return NetworkObservation { [weak self] in
            _ = self?.state.withLockedValue { $0.relays.remove(id) }
            relay.cancel()
        }
    }

    func paths() -> AsyncStream<NetworkPath> {
        observerStream(of: self, \.state, \.observers, initial: { $0.path })
    }
}
