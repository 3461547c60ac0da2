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

    /// Whether any lease holds it.
    public var isOccupied: Bool { leaseCount > 0 }

    /// A snapshot with these values (for testing your own rules).
    public init(
        connection: any Connection,
        configuration: ConnectionConfiguration,
        state: ConnectionState,
        leaseCount: Int,
        idleDuration: Duration?
    ) {
        self.connection = connection
        self.configuration = configuration
        self.state = state
        self.leaseCount = leaseCount
        self.idleDuration = idleDuration
    }

    init(entry: ConnectionPool.Entry) {
        self.init(
            connection: entry.connection,
            configuration: entry.configuration,
            state: entry.connection.state,
            leaseCount: entry.leases,
            idleDuration: entry.leases > 0 ? nil : entry.idleSince?.now()
        )
    }
}
