import SwitchboardCore
/// One pooled connection as the keeper's rules see it during a scan.
public struct ConnectionSnapshot: Sendable {
    /// The connection.
    public let connection: any Connection
    /// What it was made for (its pool key).
    public let configuration: ConnectionConfiguration
    /// Its state when the scan looked.
    public let state: ConnectionState
    /// How many leases hold it.
    public let leaseCount: Int
    /// How long it has had no lease; `nil` while occupied.
    public let idleDuration: Duration?
    /// Where the app's lifecycle has the manager (``ConnectionManager/suspend(after:)``).
    public let appLifecycle: AppLifecycle

    /// Whether any lease holds it.
    public var isOccupied: Bool { leaseCount > 0 }

    /// A snapshot with these values (for testing your own rules).
    public init(
        connection: any Connection,
        configuration: ConnectionConfiguration,
        state: ConnectionState,
        leaseCount: Int,
        idleDuration: Duration?,
        appLifecycle: AppLifecycle = .active
    ) {
        self.connection = connection
        self.configuration = configuration
        self.state = state
        self.leaseCount = leaseCount
        self.idleDuration = idleDuration
        self.appLifecycle = appLifecycle
    }

    /// The app's lifecycle is read after the connection's state, never before: a state that a
    /// suspension caused is never seen with the lifecycle from before it (which would ask for a
    /// reconnection while suspended).
    init(entry: ConnectionPool.Entry, appLifecycle: () -> AppLifecycle) {
        let state = entry.connection.state
        self.init(
            connection: entry.connection,
            configuration: entry.configuration,
            state: state,
            leaseCount: entry.leases,
            idleDuration: entry.leases > 0 ? nil : entry.idleSince?.now(),
            appLifecycle: appLifecycle()
        )
    }
}
