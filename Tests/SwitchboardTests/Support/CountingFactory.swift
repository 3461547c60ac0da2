import NIOConcurrencyHelpers
@testable import Switchboard
import SwitchboardTesting

/// An in-memory factory that counts the connections it makes, and can be told to fail.
final class CountingFactory: ConnectionFactory {
    let server: InMemoryServer
    let clock: any Clock<Duration>
    private let state = NIOLockedValueBox((made: 0, failures: 0))

    init(server: InMemoryServer = InMemoryServer(), clock: any Clock<Duration> = ContinuousClock()) {
        self.server = server
        self.clock = clock
    }

    /// How many connections were made.
    var made: Int { state.withLockedValue { $0.made } }

    /// The next `count` calls fail with ``ConnectionError/invalidConfiguration(_:)``.
    func failNext(_ count: Int) {
        state.withLockedValue { $0.failures = count }
    }

    func makeConnection(for configuration: ConnectionConfiguration) throws(ConnectionError) -> any Connection {
        let fail = state.withLockedValue { state -> Bool in
            if state.failures > 0 {
                state.failures -= 1
                return true
            }
            state.made += 1
            return false
        }
        if fail { throw .invalidConfiguration("told to fail") }
        return DriverConnection(configuration: configuration, driver: InMemoryDriver(server: server), clock: clock)
    }
}
