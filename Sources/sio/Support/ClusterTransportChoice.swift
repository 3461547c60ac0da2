import Logging
import SocketIOPostgres
import SocketIOServer

/// What `--cluster` names: `local` (servers in this process joined in memory, for `sio bench`)
/// or a `postgres://` URL (socket.io's PostgreSQL adapter protocol).
struct ClusterTransportChoice: Sendable {
    let name: String
    /// Makes one server's transport.
    let make: @Sendable () async throws -> any ClusterTransport

    static func make(_ target: String, allowLocal: Bool = true, logger: Logger = Logger.disabledCluster) throws -> ClusterTransportChoice {
        if target == "local", allowLocal {
            let bus = LocalClusterBus()
            return ClusterTransportChoice(name: "in-memory bus") { bus.endpoint() }
        }
        guard target.hasPrefix("postgres://") || target.hasPrefix("postgresql://") else {
            throw CLIError("--cluster takes \(allowLocal ? "`local` or " : "")a postgres:// URL, not \(target)")
        }
        return ClusterTransportChoice(name: "PostgreSQL") {
            try await PostgresClusterTransport.connect(url: target, logger: logger)
        }
    }
}

extension Logger {
    /// A logger that drops everything, for the transports `sio bench` makes.
    static var disabledCluster: Logger { Logger(label: "sio.cluster") { _ in SwiftLogNoOpLogHandler() } }
}
