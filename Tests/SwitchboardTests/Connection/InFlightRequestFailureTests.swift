import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// A request in the driver when the app disconnects fails with the connection's reason, not
/// with whatever the driver reports once its part is ended. (The connection ended the driver's
/// part before answering the caller, so a driver that reported at once — as a cancelled task
/// does on another thread, which is how `OfflineCommandTests` saw it once in a full run — won.)
@Suite(.timeLimit(.minutes(1)))
struct InFlightRequestFailureTests {
    /// A driver whose requests never get a reply and that reports their end at once.
    final class EndReportingDriver: CallbackRequestDriver {
        let started = AsyncStream.makeStream(of: Void.self)

        func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {}
        func close() async {}
        func send(_ event: String, _ payload: JSONValue) async throws {}

        func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
            throw DriverError.notConnected
        }

        func startRequest(
            _ event: String, _ payload: JSONValue, timeout: Duration,
            complete: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> @Sendable () -> Void {
            started.continuation.yield()
            return { complete(.failure(DriverError.notConnected)) }
        }
    }

    @Test func aRequestInFlightWhenTheAppDisconnectsFailsWithTheDisconnect() async throws {
        let driver = EndReportingDriver()
        let connection = DriverConnection(configuration: ConnectionConfiguration(url: testURL), driver: driver)
        try await connection.connect()
        let inFlight = Task { try await connection.request("never", 1, timeout: .seconds(60)) }
        _ = try await driver.started.stream.first(1, within: 10, "the request reaching the driver")
        try await connection.disconnect()
        await #expect(throws: ConnectionError.connectionLost("the app disconnected")) {
            try await withTimeout(10, "the request's caller") { try await inFlight.value }
        }
    }
}
