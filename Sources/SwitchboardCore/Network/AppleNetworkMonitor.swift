#if canImport(Network)
// Apple platforms only: this file cannot be compiled on the Linux machine the project is built
// and tested on, so it stays thin and mechanical (NWPathMonitor's path mapped to NetworkPath).
import Network
import Dispatch

/// `NWPathMonitor` as a ``NetworkMonitor``, shared by every manager of the process.
/// `@unchecked Sendable`: the monitor is started once in `init` and only calls back on its queue.
final class AppleNetworkMonitor: NetworkMonitor, @unchecked Sendable {
    static let shared = AppleNetworkMonitor()

    private let broadcast = PathBroadcast()
    private let monitor = NWPathMonitor()

    private init() {
        monitor.pathUpdateHandler = { [broadcast] nwPath in
            broadcast.report(Self.path(nwPath))
        }
        monitor.start(queue: DispatchQueue(label: "switchboard.network-monitor"))
    }

    func paths() -> AsyncStream<NetworkPath> {
        broadcast.paths()
    }

    func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation {
        broadcast.observe(handler)
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
