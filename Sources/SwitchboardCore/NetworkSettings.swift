/// Settings a mobile app wants on a long-lived connection, given to the WebSocket transport on
/// both network stacks (Network.framework on Apple platforms, sockets on Linux). What only
/// Apple's stack can honour says so; elsewhere it is ignored.
///
/// ```swift
/// var configuration = Manager.Configuration()
/// configuration.network.tcpKeepAlive = .seconds(30)          // both stacks
/// configuration.network.prohibitExpensivePaths = true       // Apple: never over cellular or a hotspot
/// ```
public struct NetworkSettings: Sendable, Hashable {
    /// Multipath TCP on Apple platforms (`NWParameters.MultipathServiceType`).
    public enum Multipath: String, Sendable, Hashable, CaseIterable {
        /// One path at a time (the default).
        case disabled
        /// Moves to another interface when the first goes away (Wi-Fi → cellular).
        case handover
        /// Uses another interface to lower latency.
        case interactive
        /// Uses every interface at once.
        case aggregate
    }

    /// TCP keep-alive probes after this long without traffic; `nil` (the default) leaves them
    /// off — the Engine.IO heartbeat finds a dead connection anyway, this finds it between
    /// heartbeats. Both stacks (seconds, rounded up).
    public var tcpKeepAlive: Duration?
    /// Apple platforms only: never use an expensive path (cellular, a personal hotspot).
    public var prohibitExpensivePaths = false
    /// Apple platforms only: never use a constrained path (Low Data Mode).
    public var prohibitConstrainedPaths = false
    /// Apple platforms only: Multipath TCP, `.disabled` by default.
    public var multipath = Multipath.disabled

    /// Settings with every default (keep-alive off, no path restriction, no multipath).
    public init() {}
}
