import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// A queued send the flush has taken out, still in the driver's `send` when the app disconnects
/// and releases the connection: the release fails what is still queued, and this send's caller
/// is told too once the driver refuses it. (Put back into the queue of a released connection,
/// it waited for good.)
@Suite(.timeLimit(.minutes(1)))
struct FlushedSendReleaseTests {
    /// A driver whose `send` waits for `proceed`, then finds the transport gone.
    final class SlowRefusingDriver: ConnectionDriver {
        let entered = AsyncStream.makeStream(of: Void.self)
        let proceed = Gate()

        func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {}
        func close() async {}

        func send(_ event: String, _ payload: JSONValue) async throws {
            entered.continuation.yield()
            await proceed.wait()
            throw DriverError.notConnected
        }

        func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
            throw DriverError.notConnected
        }
    }

    @Test func aSendInTheDriverWhenTheConnectionIsReleasedFailsWithReleased() async throws {
        let driver = SlowRefusingDriver()
        let connection = DriverConnection(configuration: ConnectionConfiguration(url: testURL), driver: driver)
        var counts = connection.queuedCommandCounts().makeAsyncIterator()
        let send = Task { try await connection.send("position", 1) }
        while await counts.next() != 1 {}

        try await connection.connect()
        _ = try await driver.entered.stream.first(1, within: 10, "the flush handing the send to the driver")
        try await connection.disconnect()
        try await connection.release()
        driver.proceed.open()

        await #expect(throws: ConnectionError.released) {
            try await withTimeout(10, "the send's caller") { try await send.value }
        }
        #expect(connection.queuedCommandCount == 0)
    }
}
