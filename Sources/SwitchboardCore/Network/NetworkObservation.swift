import NIOConcurrencyHelpers

/// A running ``NetworkMonitor/observe(_:)``: cancel it to stop the calls.
public final class NetworkObservation: Sendable {
    private let onCancel: CallOnce

    /// An observation that runs `cancel` once, when cancelled.
    public init(cancel: @escaping @Sendable () -> Void) {
        onCancel = CallOnce(cancel)
    }

    /// Stops the calls (a call under way may still finish). Later calls do nothing.
    public func cancel() {
        onCancel.run()
    }
}

/// The observers of a built-in monitor, kept in its locked state: each path carries a version,
/// and each observer gets the versions in order, once, never two calls at once — the current
/// path handed over when it starts may race with a change, and the older one then is dropped.
struct PathObservers: Sendable {
    private var relays: [UInt64: PathRelay] = [:]
    private var nextID: UInt64 = 0
    /// Increases with every path the monitor reports.
    private(set) var version: UInt64 = 0

    /// The next version, for a new path.
    mutating func advance() -> UInt64 {
        version += 1
        return version
    }

    mutating func add(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> (id: UInt64, relay: PathRelay) {
        nextID += 1
        let relay = PathRelay(handler)
        relays[nextID] = relay
        return (nextID, relay)
    }

    mutating func remove(_ id: UInt64) -> PathRelay? {
        relays.removeValue(forKey: id)
    }

    var all: [PathRelay] { Array(relays.values) }
}

/// Hands one observer its paths in version order.
final class PathRelay: Sendable {
    private struct State {
        var handler: (@Sendable (NetworkPath) -> Void)?
        var delivered: UInt64?
    }

    private let state: NIOLockedValueBox<State>

    init(_ handler: @escaping @Sendable (NetworkPath) -> Void) {
        state = NIOLockedValueBox(State(handler: handler))
    }

    /// Calls the handler with `path` unless a newer version was delivered or it was cancelled.
    /// The handler runs under the relay's lock (it must not block), which keeps the order.
    func deliver(_ path: NetworkPath, version: UInt64) {
        state.withLockedValue { state in
            guard let handler = state.handler, state.delivered.map({ version > $0 }) ?? true else { return }
            state.delivered = version
            handler(path)
        }
    }

    func cancel() {
        state.withLockedValue { $0.handler = nil }
    }
}

extension NetworkMonitor {
    /// Calls `handler` with the current path, then with each change, in order, never two calls
    /// at once, on any thread, until the observation is cancelled; `handler` must return quickly
    /// (hand the path on, for example to an event loop). This default reads ``paths()`` in a
    /// task; the built-in monitors call back directly, without a task per observer.
    public func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation {
        let paths = self.paths()
        let task = Task {
            for await path in paths { handler(path) }
        }
        return NetworkObservation { task.cancel() }
    }
}
