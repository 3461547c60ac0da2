import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// Opens connections to one database, mapping postgres-nio's errors to ours. Every connection
/// it opens runs on one event loop, ``eventLoop``: the transport's tasks prefer it, so a
/// publish is written without a hop to another thread.
struct PostgresConnector: Sendable {
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    let eventLoop: any EventLoop
    private static let ids = NIOLockedValueBox(0)

    /// - Parameter synchronousCommit: `false` sets `synchronous_commit = off` on every
    ///   connection (``PostgresClusterTransport/Options/synchronousCommit``).
    init(url: PostgresURL, synchronousCommit: Bool = true, logger: Logger) {
        var configuration = PostgresConnection.Configuration(
            host: url.host,
            port: url.port,
            username: url.username,
            password: url.password,
            database: url.database,
            tls: .disable
        )
        configuration.options.additionalStartupParameters = [("application_name", "switchboard-cluster")]
        if !synchronousCommit { configuration.options.additionalStartupParameters.append(("synchronous_commit", "off")) }
        self.configuration = configuration
        self.logger = logger
        self.eventLoop = PostgresConnection.defaultEventLoopGroup.next()
    }

    /// A new connection.
    ///
    /// - Throws: ``PostgresClusterTransportError/unreachable(_:)``.
    func connect() async throws(PostgresClusterTransportError) -> PostgresConnection {
        let id = Self.ids.withLockedValue { value in
            value += 1
            return value
        }
        do {
            return try await PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
        } catch {
            throw .unreachable(Self.describe(error))
        }
    }

    /// postgres-nio's `PSQLError` hides its details from `description` (they may hold data);
    /// the reflection names the server's message and code, which an operator needs.
    static func describe(_ error: any Error) -> String {
        String(reflecting: error)
    }
}
