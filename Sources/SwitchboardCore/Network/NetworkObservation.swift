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

/// Hands one observer its paths in version order, one call at a time, outside any lock (a
/// handler may cancel its own observation or report a path to the monitor it observes): a path
/// that comes while a call runs waits, replaced by a newer one, and the running caller delivers
/// it after.
final class PathRelay: Sendable {
    private struct State {
        var handler: (@Sendable (NetworkPath) -> Void)?
        /// The newest version accepted (delivered or waiting).
        var accepted: UInt64?
        /// The path that waits for the call under way to return.
        var waiting: NetworkPath?
        /// Whether a caller is delivering now.
        var delivering = false
    }

    private let state: NIOLockedValueBox<State>

    init(_ handler: @escaping @Sendable (NetworkPath) -> Void) {
        state = NIOLockedValueBox(State(handler: handler))
    }

    /// Calls the handler with `path` unless a newer version came first or it was cancelled.
    func deliver(_ path: NetworkPath, version: UInt64) {
        let first = state.withLockedValue { state -> Bool in
            guard state.handler != nil, state.accepted.map({ version > $0 }) ?? true else { return false }
            state.accepted = version
            state.waiting = path
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard first else { return }
        while let (handler, path) = nextCall() { handler(path) }
    }

    /// The waiting path and the handler to call with it; `nil` (and delivering over) when none.
    private func nextCall() -> (@Sendable (NetworkPath) -> Void, NetworkPath)? {
        state.withLockedValue { state in
            guard let handler = state.handler, let path = state.waiting else {
                state.delivering = false
                state.waiting = nil
                return nil
            }
            state.waiting = nil
            return (handler, path)
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
