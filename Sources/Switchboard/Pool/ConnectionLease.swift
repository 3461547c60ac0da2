import SwitchboardCore

/// A hold on a pooled ``Connection`` (the "connection handler"): while any lease on a connection
/// is held, the connection is occupied and the ``ConnectionKeeper`` keeps it connected. Release
/// it when the screen or service is done — or just drop it: the last reference going away
/// releases it too.
///
/// ```swift
/// let lease = try await ConnectionManager.shared.lease(url)
/// try await lease.connection.send("hello", "world")
/// lease.release()   // or let it go out of scope
/// ```
public final class ConnectionLease: Sendable {
    /// The shared connection.
    public let connection: any Connection
    /// What it was leased for.
    public let configuration: ConnectionConfiguration
    private let onRelease: CallOnce

    init(connection: any Connection, configuration: ConnectionConfiguration, onRelease: @escaping @Sendable () -> Void) {
        self.connection = connection
        self.configuration = configuration
        self.onRelease = CallOnce(onRelease)
    }

    /// Whether ``release()`` was called.
    public var isReleased: Bool { onRelease.hasRun }

    /// Gives the lease back; later calls do nothing. When it was the connection's last lease, the
    /// connection is no longer occupied and the keeper may close it.
    public func release() {
        onRelease.run()
    }

    deinit {
        release()
    }
}
