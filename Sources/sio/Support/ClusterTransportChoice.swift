import Logging
import SocketIOServer
import SwitchboardCore
#if Cluster
import SocketIOPostgres
#endif

/// What `--cluster` names: `local` (servers in this process joined in memory, for `sio bench`)
/// or a `postgres://` URL (socket.io's PostgreSQL adapter protocol).
struct ClusterTransportChoice: Sendable {
    let name: String
    /// Makes one server's transport.
    let make: @Sendable () async throws -> any ClusterTransport

    static func make(_ target: String, allowLocal: Bool = true, logger: Logger = .disabled("sio.cluster")) throws -> ClusterTransportChoice {
        if target == "local", allowLocal {
            let bus = LocalClusterBus()
            return ClusterTransportChoice(name: "in-memory bus") { bus.endpoint() }
        }
        guard target.hasPrefix("postgres://") || target.hasPrefix("postgresql://") else {
            throw CLIError("--cluster takes \(allowLocal ? "`local` or " : "")a postgres:// URL, not \(target)")
        }
        #if Cluster
        return ClusterTransportChoice(name: "PostgreSQL") {
            try await PostgresClusterTransport.connect(url: target, logger: logger)
        }
        #else
        // The first command a newcomer runs (`swift run sio demo`) does not build postgres-nio
        // and its second copy of BoringSSL: the cluster is a package trait.
        throw CLIError("""
            this sio was built without the Cluster trait, so it has no PostgreSQL transport; \
            build it with the trait: swift run --traits Cluster sio serve --cluster \(target)
            """)
        #endif
    }
}
