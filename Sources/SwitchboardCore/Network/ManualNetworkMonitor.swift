import NIOConcurrencyHelpers

/// A network monitor you drive by hand: for tests and previews (a path change on a test clock,
/// an unsatisfied path without touching the machine's network).
public final class ManualNetworkMonitor: NetworkMonitor {
    struct State: Sendable {
        var path: NetworkPath
        var observers = ObserverSet<NetworkPath>()
        var handlers = PathObservers()
    }

    let state: NIOLockedValueBox<State>

    /// A monitor whose current path is `path`.
    public init(_ path: NetworkPath = .satisfied) {
        state = NIOLockedValueBox(State(path: path))
    }

    /// The current path.
    public var path: NetworkPath { state.withLockedValue { $0.path } }

    /// Reports `path` to every watcher (even when it equals the current one: a new address on the
    /// same interface is a change a caller may want to simulate).
    public func update(_ path: NetworkPath) {
        let (relays, version) = state.withLockedValue { state in
            state.path = path
            state.observers.yield(path)
            return (state.handlers.all, state.handlers.advance())
        }
        for relay in relays { relay.deliver(path, version: version) }
    }

    public func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation {
        let (id, relay, path, version) = state.withLockedValue { state in
            let (id, relay) = state.handlers.add(handler)
            return (id, relay, state.path, state.handlers.version)
        }
        relay.deliver(path, version: version)
        return NetworkObservation { [weak self] in
            self?.state.withLockedValue { _ = $0.handlers.remove(id) }
            relay.cancel()
        }
    }

    public func paths() -> AsyncStream<NetworkPath> {
        observerStream(of: self, \.state, \.observers, initial: { $0.path })
    }
}
