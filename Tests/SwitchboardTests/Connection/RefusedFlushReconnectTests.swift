import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// A queued send the flush handed to the driver, which refuses it only after the transport
/// dropped and the connection was back: the reconnect found that flush still running and
/// started none, so the refusal must start one. (The send was put back and nothing ran it: its
/// caller and everything queued behind it waited for good.)
@Suite(.timeLimit(.minutes(1)))
struct RefusedFlushReconnectTests {
    /// A driver whose first `send` waits for `proceed`, then finds its transport gone; every
    /// later send and request goes through.
    final class RefusingFirstSendDriver: ConnectionDriver {
        let entered = AsyncStream.makeStream(of: Void.self)
        let proceed = Gate()
        private let state = NIOLockedValueBox((sends: 0, onEvent: (@Sendable (DriverEvent) -> Void)?.none))
        private let written = NIOLockedValueBox<[String]>([])

        var sent: [String] { written.withLockedValue { $0 } }

        func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
            state.withLockedValue { $0.onEvent = onEvent }
        }

        func close() async {}

        /// The transport drops: the connection hears of it.
        func drop() {
            state.withLockedValue { $0.onEvent }?(.closed(reason: "cut"))
        }

        func send(_ event: String, _ payload: JSONValue) async throws {
            let first = state.withLockedValue { state in
                state.sends += 1
                return state.sends == 1
            }
            if first {
                entered.continuation.yield()
                await proceed.wait()
                throw DriverError.notConnected
            }
            written.withLockedValue { $0.append(event) }
        }

        func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
            written.withLockedValue { $0.append(event) }
            return Response(values: [payload])
        }
    }

    @Test func aSendRefusedAfterTheReconnectIsFlushedOnThatConnection() async throws {
        let driver = RefusingFirstSendDriver()
        let connection = DriverConnection(configuration: ConnectionConfiguration(url: testURL), driver: driver)
        let send = Task { try await connection.send("position", 1) }
        try await connection.waitForQueued(1)
        let request = Task { try await connection.request("ack", 2, timeout: .seconds(30)) }
        try await connection.waitForQueued(2)

        try await withTimeout(10, "connect") { try await connection.connect() }
        _ = try await driver.entered.stream.first(1, within: 10, "the flush handing the send to the driver")
        driver.drop()
        try await connection.waitFor(.disconnected)
        try await withTimeout(10, "reconnect") { try await connection.connect() }
        driver.proceed.open()

        let answer = try await withTimeout(10, "the queued commands, on the new connection") {
            try await send.value
            return try await request.value
        }
        #expect(answer == Response(values: [2]))
        #expect(driver.sent == ["position", "ack"], "in the order they were made")
        #expect(connection.queuedCommandCount == 0)
    }
}
