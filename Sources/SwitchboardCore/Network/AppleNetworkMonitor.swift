#if canImport(Network)
// Apple platforms only: this file cannot be compiled on the Linux machine the project is built
// and tested on, so it stays thin and mechanical (NWPathMonitor's path mapped to NetworkPath).
import Network
import NIOConcurrencyHelpers
import Dispatch

/// `NWPathMonitor` as a ``NetworkMonitor``, shared by every manager of the process.
/// `@unchecked Sendable`: the monitor is started once in `init` and only calls back on its queue.
final class AppleNetworkMonitor: NetworkMonitor, @unchecked Sendable {
    static let shared = AppleNetworkMonitor()

    struct State: Sendable {
        var path: NetworkPath?
        var observers = ObserverSet<NetworkPath>()
        var handlers = PathObservers()
    }

    let state = NIOLockedValueBox(State())
    private let monitor = NWPathMonitor()

    private init() {
        monitor.pathUpdateHandler = { [state] nwPath in
            let path = Self.path(nwPath)
            let changed: ([PathRelay], UInt64)? = state.withLockedValue { state in
                guard state.path != path else { return nil }
                state.path = path
                state.observers.yield(path)
                return (state.handlers.all, state.handlers.advance())
            }
            if let (relays, version) = changed {
                for relay in relays { relay.deliver(path, version: version) }
            }
        }
        monitor.start(queue: DispatchQueue(label: "switchboard.network-monitor"))
    }

    func paths() -> AsyncStream<NetworkPath> {
        observerStream(of: self, \.state, \.observers, initial: { $0.path })
    }

    func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation {
        let (id, relay, path, version) = state.withLockedValue { state in
            let (id, relay) = state.handlers.add(handler)
            return (id, relay, state.path, state.handlers.version)
        }
        if let path { relay.deliver(path, version: version) }
        return NetworkObservation { [weak self] in
            self?.state.withLockedValue { _ = $0.handlers.remove(id) }
            relay.cancel()
        }
    }

    static func path(_ path: NWPath) -> NetworkPath {
        let interfaces = path.availableInterfaces.map { interface in
            NetworkPath.Interface(name: interface.name, kind: kind(interface.type))
        }
        return NetworkPath(
            status: path.status == .satisfied ? .satisfied : .unsatisfied,
            interfaces: interfaces.sorted { $0.name < $1.name },
            isExpensive: path.isExpensive,
            isConstrained: path.isConstrained
        )
    }

    static func kind(_ type: NWInterface.InterfaceType) -> NetworkPath.InterfaceKind {
        switch type {
        case .wifi: .wifi
        case .cellular: .cellular
        case .wiredEthernet: .wiredEthernet
        case .loopback: .loopback
        default: .other
        }
    }
}
#endif
