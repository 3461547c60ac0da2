import SwitchboardCore
public import Logging

/// Makes a ``Connection`` for a configuration. Swapping the factory swaps the technology: the
/// pool, leases, keeper and feature code stay the same.
///
/// ```swift
/// let manager = ConnectionManager(factory: .socketIO)            // Socket.IO
/// let tests = ConnectionManager(factory: .inMemory(server))      // an in-memory fake
/// ```
public protocol ConnectionFactory: Sendable {
    /// A new connection in state `created` for `configuration`. The pool calls it once per key,
    /// outside its locks; it should not open anything (the keeper or the caller connects).
    func makeConnection(for configuration: ConnectionConfiguration) throws(ConnectionError) -> any Connection
}

/// A factory that puts a ``DriverConnection`` over the driver `makeDriver` returns: to add a
/// technology, write its ``ConnectionDriver`` and one factory line.
///
/// ```swift
/// extension ConnectionFactory where Self == DriverConnectionFactory {
///     static var myTransport: DriverConnectionFactory {
///         DriverConnectionFactory { configuration in MyDriver(configuration) }
///     }
/// }
/// ```
public struct DriverConnectionFactory: ConnectionFactory {
    /// Makes the driver for a configuration.
    public typealias MakeDriver = @Sendable (ConnectionConfiguration) throws(ConnectionError) -> any ConnectionDriver

    private let makeDriver: MakeDriver
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// A factory over `makeDriver`; `clock` measures request deadlines.
    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger? = nil,
        makeDriver: @escaping MakeDriver
    ) {
        let logger = logger ?? .disabled("switchboard.connection")
        self.makeDriver = makeDriver
        self.clock = clock
        self.logger = logger
    }

    /// A ``DriverConnection`` over a driver made by `makeDriver` for `configuration`.
    ///
    /// - Throws: ``ConnectionError/invalidConfiguration(_:)`` for a header that cannot be sent (a
    ///   name that is not an HTTP token, a control character in a value), or what `makeDriver` throws.
    public func makeConnection(for configuration: ConnectionConfiguration) throws(ConnectionError) -> any Connection {
        let headers = configuration.headers.lazy.map { (name: $0.name, value: $0.value) }
        if let problem = HTTPHeaderField.problem(in: headers) { throw .invalidConfiguration(problem) }
        return DriverConnection(configuration: configuration, driver: try makeDriver(configuration), clock: clock, logger: logger)
    }
}
