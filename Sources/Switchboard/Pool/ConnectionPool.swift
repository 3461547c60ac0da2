import SwitchboardCore
import NIOConcurrencyHelpers

/// The flyweight: one ``Connection`` per ``ConnectionConfiguration`` (URL, namespace and the
/// rest), made on first use by the factory and handed to everyone who asks afterwards. It also
/// counts the leases on each connection, which is what makes a connection occupied.
///
/// ```swift
/// let pool = ConnectionPool(factory: .socketIO)
/// let a = try await pool.connection(for: configuration)
/// let b = try await pool.connection(for: configuration)   // a === b
/// ```
///
/// Safe under any number of concurrent callers: the factory runs once per key, outside the
/// pool's lock, while other callers for that key wait for its result. Usually reached through a
/// ``ConnectionManager``; the ``ConnectionKeeper`` removes the connections it releases.
public final class ConnectionPool: Sendable {
    let factory: any ConnectionFactory
    let clock: any Clock<Duration>
    private let slots = NIOLockedValueBox(Slots())
    /// Whether the app is suspended (the keeper's rules read it in each snapshot).
    let suspension: AppSuspension

    /// A pool whose connections `factory` makes; `clock` measures how long one is idle.
    public init(factory: any ConnectionFactory, clock: any Clock<Duration> = ContinuousClock()) {
        self.factory = factory
        self.clock = clock
        self.suspension = AppSuspension(clock: clock)
    }

    struct Entry: Sendable {
        let connection: any Connection
        let configuration: ConnectionConfiguration
        var leases: Int
        /// Started when the last lease went away; `nil` while occupied.
        var idleSince: Timeline?
    }

    enum Slot: Sendable {
        /// The factory is running; `waiters` get its result, `leases` of them lease it.
        case making(waiters: [CheckedContinuation<any Connection, any Error>], leases: Int)
        case ready(Entry)
    }

    struct Slots: Sendable {
        var byConfiguration: [ConnectionConfiguration: Slot] = [:]
        var byID: [ConnectionID: ConnectionConfiguration] = [:]
    }

    /// The connection for `configuration`, made on first use; the same instance afterwards (until
    /// the keeper releases it). This does not lease it: an unleased connection is the keeper's to
    /// close. Use ``ConnectionManager/lease(_:)`` to hold one.
    public func connection(for configuration: ConnectionConfiguration) async throws -> any Connection {
        try await checkOut(configuration, leasing: false)
    }

    /// The connection for `configuration` if the pool holds one now.
    public func existingConnection(for configuration: ConnectionConfiguration) -> (any Connection)? {
        slots.withLockedValue { slots in
            if case .ready(let entry) = slots.byConfiguration[configuration] { return entry.connection }
            return nil
        }
    }

    /// How many connections the pool holds.
    public var count: Int {
        slots.withLockedValue { slots in
            slots.byConfiguration.values.reduce(0) { count, slot in
                if case .ready = slot { return count + 1 }
                return count
            }
        }
    }

    /// How many leases `connection` has (0 when it is not in the pool).
    public func leaseCount(of connection: ConnectionID) -> Int {
        slots.withLockedValue { slots in
            guard let configuration = slots.byID[connection], case .ready(let entry) = slots.byConfiguration[configuration] else { return 0 }
            return entry.leases
        }
    }

    // MARK: - Leasing

    /// The connection for `configuration` (made if needed), with one more lease when `leasing`.
    func checkOut(_ configuration: ConnectionConfiguration, leasing: Bool) async throws -> any Connection {
        var connection = try await checkOutOnce(configuration, leasing: leasing)
        if connection.state == .released {
            // Released behind the pool's back (its holders keep the dead one): make a new one.
            discard(connection.id)
            connection = try await checkOutOnce(configuration, leasing: leasing)
        }
        return connection
    }

    private func discard(_ connection: ConnectionID) {
        slots.withLockedValue { slots in
            guard let configuration = slots.byID.removeValue(forKey: connection),
                  case .ready(let entry) = slots.byConfiguration[configuration], entry.connection.id == connection else { return }
            slots.byConfiguration.removeValue(forKey: configuration)
        }
    }

    private func checkOutOnce(_ configuration: ConnectionConfiguration, leasing: Bool) async throws -> any Connection {
        enum Step { case ready(any Connection), make, wait }
        let lease = leasing ? 1 : 0
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Connection, any Error>) in
            let step = slots.withLockedValue { slots -> Step in
                switch slots.byConfiguration[configuration] {
                case .ready(var entry):
                    entry.leases += lease
                    if entry.leases > 0 { entry.idleSince = nil }
                    slots.byConfiguration[configuration] = .ready(entry)
                    return .ready(entry.connection)
                case .making(var waiters, let leases):
                    waiters.append(continuation)
                    slots.byConfiguration[configuration] = .making(waiters: waiters, leases: leases + lease)
                    return .wait
                case nil:
                    slots.byConfiguration[configuration] = .making(waiters: [continuation], leases: lease)
                    return .make
                }
            }
            switch step {
            case .ready(let connection): continuation.resume(returning: connection)
            case .wait: return
            case .make: make(configuration)
            }
        }
    }

    /// Runs the factory (outside the lock) and hands its result to every waiter.
    private func make(_ configuration: ConnectionConfiguration) {
        let made: Result<any Connection, ConnectionError>
        do throws(ConnectionError) {
            made = .success(try factory.makeConnection(for: configuration))
        } catch {
            made = .failure(error)
        }
        let stopwatch = Timeline(clock)
        let waiters = slots.withLockedValue { slots -> [CheckedContinuation<any Connection, any Error>] in
            guard case .making(let waiters, let leases) = slots.byConfiguration[configuration] else { return [] }
            switch made {
            case .success(let connection):
                let entry = Entry(connection: connection, configuration: configuration, leases: leases, idleSince: leases > 0 ? nil : stopwatch)
                slots.byConfiguration[configuration] = .ready(entry)
                slots.byID[connection.id] = configuration
            case .failure:
                slots.byConfiguration.removeValue(forKey: configuration)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: made.mapError { $0 as any Error }) }
    }

    /// One lease on `connection` ended.
    func checkIn(_ connection: ConnectionID) {
        let stopwatch = Timeline(clock)
        slots.withLockedValue { slots in
            guard let configuration = slots.byID[connection],
                  case .ready(var entry) = slots.byConfiguration[configuration],
                  entry.connection.id == connection, entry.leases > 0 else { return }
            entry.leases -= 1
            if entry.leases == 0 { entry.idleSince = stopwatch }
            slots.byConfiguration[configuration] = .ready(entry)
        }
    }

    // MARK: - For the keeper

    /// Every connection with its lease count and idle time (states read after the lock).
    func snapshots() -> [ConnectionSnapshot] {
        let entries = slots.withLockedValue { slots in
            slots.byConfiguration.values.compactMap { slot -> Entry? in
                if case .ready(let entry) = slot { return entry }
                return nil
            }
        }
        return entries.map { ConnectionSnapshot(entry: $0) { self.suspension.current } }
    }

    /// `connection`'s snapshot now, if it is in the pool.
    func snapshot(of connection: ConnectionID) -> ConnectionSnapshot? {
        let entry = slots.withLockedValue { slots -> Entry? in
            guard let configuration = slots.byID[connection], case .ready(let entry) = slots.byConfiguration[configuration] else { return nil }
            return entry
        }
        return entry.map { ConnectionSnapshot(entry: $0) { self.suspension.current } }
    }

    // MARK: - Removal

    /// Takes `connection` out of the pool whatever its leases (shutdown).
    func remove(_ connection: ConnectionID) {
        discard(connection)
    }

    /// Takes `connection` out of the pool if nobody leases it; `false` if someone does (or it is
    /// not in the pool). New requests for its configuration then get a new connection.
    func removeIfUnoccupied(_ connection: ConnectionID) -> Bool {
        slots.withLockedValue { slots in
            guard let configuration = slots.byID[connection],
                  case .ready(let entry) = slots.byConfiguration[configuration],
                  entry.connection.id == connection, entry.leases == 0 else { return false }
            slots.byConfiguration.removeValue(forKey: configuration)
            slots.byID.removeValue(forKey: connection)
            return true
        }
    }
}
