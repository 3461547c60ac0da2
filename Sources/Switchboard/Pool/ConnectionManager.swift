public import SwitchboardCore
public import Foundation
public import Logging
import NIOConcurrencyHelpers

/// Where feature code gets its connections: ``lease(_:)`` returns a ``ConnectionLease`` on the
/// pooled connection for a configuration (made on first use, shared afterwards), and a
/// ``ConnectionKeeper`` keeps each connection up while leases hold it and closes it when none do.
///
/// ```swift
/// // Two screens, one connection:
/// let orders = try await ConnectionManager.shared.lease(url)
/// let chat = try await ConnectionManager.shared.lease(url)
/// // orders.connection === chat.connection
/// for await update in orders.connection.events(named: "order") { … }
/// try await chat.connection.send("message", ["text": "hi"])   // queued until connected
/// ```
///
/// Use ``shared`` in apps; make your own instance to inject a factory (`ConnectionFactory.inMemory(_:clock:)` from `SwitchboardTesting`
/// in tests), a test clock, your own rules or a logger.
public final class ConnectionManager: Sendable {
    /// The app-wide manager: Socket.IO connections, default rules, a scan every 2 s.
    public static let shared = ConnectionManager()

    /// The pool of connections.
    public let pool: ConnectionPool
    /// The keeper of the pool.
    public let keeper: ConnectionKeeper

    /// A manager with its own pool and keeper.
    ///
    /// - Parameters:
    ///   - factory: makes the connections (`.socketIO` by default).
    ///   - clock: drives the keeper's scans and idle times; inject a test clock in tests.
    ///   - rules: the keeper's chain, first rule first.
    ///   - scanInterval: how often the keeper scans on its own.
    ///   - networkMonitor: when a network path returns or changes, the keeper scans at once
    ///     (the system's monitor by default; `nil` for interval scans only).
    ///   - logger: where the keeper logs what it does.
    public init(
        factory: any ConnectionFactory = .socketIO,
        clock: any Clock<Duration> = ContinuousClock(),
        rules: [any ConnectionRule] = ConnectionKeeper.defaultRules,
        scanInterval: Duration = .seconds(2),
        networkMonitor: (any NetworkMonitor)? = NetworkMonitors.system,
        logger: Logger? = nil
    ) {
        let logger = logger ?? .disabled("switchboard.manager")
        self.pool = ConnectionPool(factory: factory, clock: clock)
        self.keeper = ConnectionKeeper(pool: pool, rules: rules, scanInterval: scanInterval, clock: clock, logger: logger)
        self.networkMonitor = networkMonitor
    }

    /// The network monitor the keeper follows (``init(factory:clock:rules:scanInterval:networkMonitor:logger:)``).
    let networkMonitor: (any NetworkMonitor)?
    let networkWatch = NIOLockedValueBox<Task<Void, Never>?>(nil)

    deinit {
        networkWatch.withLockedValue { $0?.cancel() }
    }

    /// A lease on the pooled connection for `configuration`. The keeper connects it (it need
    /// not be connected when this returns: sends and requests queue until it is).
    ///
    /// - Throws: ``ConnectionError/invalidConfiguration(_:)`` when the factory cannot make one.
    public func lease(_ configuration: ConnectionConfiguration) async throws -> ConnectionLease {
        let connection = try await pool.checkOut(configuration, leasing: true)
        keeper.start()
        if let networkMonitor {
            let watch = networkWatch.withLockedValue { watch -> Bool in watch == nil }
            if watch {
                let task = watchNetwork(networkMonitor)
                let redundant = networkWatch.withLockedValue { current -> Bool in
                    guard current == nil else { return true }
                    current = task
                    return false
                }
                if redundant { task.cancel() }
            }
        }
        let pool = self.pool, keeper = self.keeper
        let lease = ConnectionLease(connection: connection, configuration: configuration) { [id = connection.id] in
            pool.checkIn(id)
            keeper.leaseChanged()
        }
        keeper.leaseChanged()
        return lease
    }

    /// A lease on the pooled connection to `url` and `namespace` with default settings.
    public func lease(_ url: URL, namespace: String? = nil) async throws -> ConnectionLease {
        try await lease(ConnectionConfiguration(url: url, namespace: namespace))
    }

    /// Stops the keeper, then disconnects and releases every pooled connection (their queued
    /// commands fail with ``ConnectionError/released``). Leases still held keep a released
    /// connection. Use it before a process or test ends. It returns once a rule's action the
    /// keeper had in flight has (a reconnect ends at once: the disconnect abandons its open).
    public func shutdown() async {
        keeper.stop()
        networkWatch.withLockedValue { watch in
            watch?.cancel()
            watch = nil
        }
        // An action the keeper started before it stopped ends first (the disconnects abandon
        // an open in flight), so none reconnects what is released below.
        for snapshot in pool.snapshots() { try? await snapshot.connection.disconnect() }
        await keeper.settled()
        for snapshot in pool.snapshots() {
            let connection = snapshot.connection
            try? await connection.disconnect()
            try? await connection.release()
            pool.remove(connection.id)
        }
    }
}
