import SocketIOServer

/// What `--cluster` names: `local` (servers in this process joined in memory) or a
/// `postgres://` URL (socket.io's PostgreSQL adapter protocol).
struct ClusterTransportChoice: Sendable {
    let name: String
    /// Makes one server's transport.
    let make: @Sendable () async throws -> any ClusterTransport

    static func make(_ target: String) throws -> ClusterTransportChoice {
        if target == "local" {
            let bus = LocalClusterBus()
            return ClusterTransportChoice(name: "in-memory bus") { bus.endpoint() }
        }
        throw CLIError("--cluster takes `local` or a postgres:// URL, not \(target)")
    }
}
