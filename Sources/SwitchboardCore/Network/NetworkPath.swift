/// The device's network path as a ``NetworkMonitor`` sees it: whether traffic can flow, and over
/// which interfaces.
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible {
    /// Whether the path can carry traffic.
    public enum Status: Sendable, Hashable {
        /// At least one interface other than loopback is up and has an address.
        case satisfied
        /// No usable interface: connecting now would only fail.
        case unsatisfied
    }

    /// What kind of link an interface is, where the platform says (Linux guesses from the name).
    public enum InterfaceKind: Sendable, Hashable {
        /// Wi-Fi, cellular, wired Ethernet, loopback, or another kind of link.
        case wifi, cellular, wiredEthernet, loopback, other
    }

    /// One usable interface.
    public struct Interface: Sendable, Hashable {
        /// The interface's name (`en0`, `wlan0`).
        public var name: String
        /// What kind of link it is.
        public var kind: InterfaceKind
        /// Its addresses, numeric (empty where the platform does not say, as on Apple platforms).
        public var addresses: [String]

        /// An interface named `name` of `kind` with `addresses`.
        public init(name: String, kind: InterfaceKind, addresses: [String] = []) {
            self.name = name
            self.kind = kind
            self.addresses = addresses
        }
    }

    /// Whether the path can reach the network.
    public var status: Status
    /// The usable interfaces (up, running), sorted by name.
    public var interfaces: [Interface]
    /// Whether the path is metered (cellular, a hotspot), where known.
    public var isExpensive: Bool?
    /// Whether the user asked to save data (Low Data Mode), where known.
    public var isConstrained: Bool?

    /// A path with this status and interfaces; `nil` where the platform does not say.
    public init(status: Status, interfaces: [Interface] = [], isExpensive: Bool? = nil, isConstrained: Bool? = nil) {
        self.status = status
        self.interfaces = interfaces
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
    }

    /// A usable path with no interface details (the default of ``ManualNetworkMonitor``).
    public static let satisfied = NetworkPath(status: .satisfied)
    /// No usable path.
    public static let unsatisfied = NetworkPath(status: .unsatisfied)

    /// A one-line description, for logs.
    public var description: String {
        let names = interfaces.map { "\($0.name)(\($0.addresses.joined(separator: ",")))" }.joined(separator: " ")
        return "\(status == .satisfied ? "satisfied" : "unsatisfied")" + (names.isEmpty ? "" : " via \(names)")
    }
}

/// Reports the network path: the current one first, then every change.
///
/// A ``Manager`` watches one (``Manager/Configuration/networkMonitor``): when the path changes
/// it checks at once whether its connection still has a route the way it was made, instead of
/// waiting for the heartbeat to fail (25–45 s with socket.io's defaults); while the path is
/// unsatisfied it does not spend reconnection attempts; when it comes back it reconnects at once.
///
/// Implementations: ``NetworkMonitors/system`` (a netlink route socket on Linux, `NWPathMonitor`
/// on Apple platforms) and ``ManualNetworkMonitor`` for tests.
public protocol NetworkMonitor: Sendable {
    /// The current path, then each change, until the consumer stops iterating.
    func paths() -> AsyncStream<NetworkPath>

    /// Calls `handler` with the current path, then with each change, in order, never two calls
    /// at once, until the observation is cancelled. `handler` may run on any thread and must
    /// return quickly. A default reads ``paths()``; a ``Manager`` uses this (no task per manager
    /// with the built-in monitors).
    func observe(_ handler: @escaping @Sendable (NetworkPath) -> Void) -> NetworkObservation
}

/// The monitors that come with the library.
public enum NetworkMonitors {
    /// The platform's monitor, shared by every manager of the process (one watcher); `nil` where
    /// there is none (then managers rely on the heartbeat alone).
    public static var system: (any NetworkMonitor)? {
        #if os(Linux)
        LinuxNetworkMonitor.shared
        #elseif canImport(Network)
        AppleNetworkMonitor.shared
        #else
        nil
        #endif
    }
}
