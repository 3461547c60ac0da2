/// What ``PostgresClusterTransport`` can throw.
public enum PostgresClusterTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection URL is not `postgres://user[:password]@host[:port]/database`; the reason
    /// says which part is wrong (the password is never repeated).
    case invalidURL(String)
    /// An option cannot be used: a table name that is not a plain SQL identifier, a payload
    /// threshold outside 1...8000, an interval that is not positive, a keep-alive timeout not
    /// longer than its interval.
    case invalidOption(String)
    /// The namespace's channel cannot be listened to: PostgreSQL's channel names are identifiers
    /// of at most 63 bytes, and postgres-nio quotes them without escaping `"`.
    case unsupportedNamespace(String)
    /// PostgreSQL could not be reached, or refused the connection (host, port, authentication).
    case unreachable(String)
    /// A query failed, or the connection it ran on was lost (publishing throws this while the
    /// database is down; the cluster adapter retries).
    case queryFailed(String)
    /// A query did not complete within ``PostgresClusterTransport/Options/queryTimeout``: the
    /// database, or the path to it, stopped answering without closing the connection (a
    /// partition, a hung server). The connection was closed; the next query opens another (the
    /// cluster adapter retries a publish, as after ``queryFailed(_:)``).
    case timedOut(String)
    /// ``PostgresClusterTransport/shutdown()`` was called.
    case closed

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .invalidURL(let reason): "invalid PostgreSQL URL: \(reason)"
        case .invalidOption(let reason): "invalid PostgreSQL transport option: \(reason)"
        case .unsupportedNamespace(let namespace): "namespace \"\(namespace)\" cannot be a PostgreSQL channel"
        case .unreachable(let reason): "PostgreSQL unreachable: \(reason)"
        case .queryFailed(let reason): "PostgreSQL query failed: \(reason)"
        case .timedOut(let reason): "PostgreSQL query timed out: \(reason)"
        case .closed: "the PostgreSQL cluster transport is shut down"
        }
    }
}
