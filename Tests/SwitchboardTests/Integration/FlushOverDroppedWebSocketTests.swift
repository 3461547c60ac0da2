import Foundation
import Harness
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// Requests queued before a plain WebSocket connection is up, flushed as it becomes connected
/// while its transport has just dropped: the WebSocket driver refuses them (nothing written),
/// so they stay queued, in order, and go out on the next connection. (They failed with
/// `driverFailed("the WebSocket driver is not open…")` before, though never sent.)
@Suite(.timeLimit(.minutes(1)))
struct FlushOverDroppedWebSocketTests {
    /// A real ``WebSocketDriver`` behind a fault proxy whose first open is cut as it returns;
    /// the driver's report of that close is held until ``reportHeldClose()``, so the connection
    /// is `connected` and flushes over a driver whose transport is gone.
    final class CutAsItOpensDriver: CallbackRequestDriver {
        let inner: WebSocketDriver
        let proxy: FaultProxy
        /// What the inner driver answered to each request the connection handed it.
        let outcomes = AsyncStream.makeStream(of: String.self)
        private let state = NIOLockedValueBox((opens: 0, heldClose: (@Sendable () -> Void)?.none))

        init(url: URL, proxy: FaultProxy) {
            self.inner = WebSocketDriver(url: url)
            self.proxy = proxy
        }

        func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
            let first = state.withLockedValue { state in
                state.opens += 1
                return state.opens == 1
            }
            guard first else { return try await inner.open(onEvent: onEvent) }
            let closed = AsyncStream.makeStream(of: Void.self)
            try await inner.open { [state] event in
                guard case .closed = event else { return onEvent(event) }
                state.withLockedValue { $0.heldClose = { onEvent(event) } }
                closed.continuation.yield()
            }
            await proxy.cutAllAndWait()
            _ = try await closed.stream.first(1, within: 10, "the driver seeing its transport cut")
        }

        func reportHeldClose() {
            state.withLockedValue { $0.heldClose }?()
        }

        func close() async { await inner.close() }
        func send(_ event: String, _ payload: JSONValue) async throws { try await inner.send(event, payload) }

        func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
            try await inner.request(event, payload, timeout: timeout)
        }

        func startRequest(
            _ event: String, _ payload: JSONValue, timeout: Duration,
            complete: @escaping @Sendable (Result<Response, any Error>) -> Void
        ) -> @Sendable () -> Void {
            inner.startRequest(event, payload, timeout: timeout) { [outcomes] result in
                switch result {
                case .success: outcomes.continuation.yield("answered \(event)")
                case .failure(let error): outcomes.continuation.yield("\(event): \(error)")
                }
                complete(result)
            }
        }
    }

    @Test func requestsRefusedUnderTheFlushStayQueuedAndGoOutOnTheNextConnection() async throws {
        try await EnvelopeServer.with(setup: { server in
            server.onPlainWebSocket { connection in
                let socket = EnvelopeSocket(connection)
                socket.onRequest("echo") { [$0] }
                try await socket.run()
            }
        }) { server in
            let proxy = try await FaultProxy.start(upstreamPort: server.port)
            let driver = CutAsItOpensDriver(url: URL(string: "ws://127.0.0.1:\(proxy.port)/ws")!, proxy: proxy)
            let connection = DriverConnection(configuration: ConnectionConfiguration(url: testURL), driver: driver)
            let first = Task { try await connection.request("echo", 1, timeout: .seconds(30)) }
            try await connection.waitForQueued(1)
            let second = Task { try await connection.request("echo", 2, timeout: .seconds(30)) }
            try await connection.waitForQueued(2)

            try await withTimeout(10, "connect") { try await connection.connect() }
            let refusal = try await driver.outcomes.stream.first(1, within: 10, "the flush handing the first request over")
            #expect(refusal == ["echo: \(DriverError.notConnected)"], "the driver wrote nothing")
            try await connection.waitForQueued(2, "the refused request back in the queue")

            driver.reportHeldClose()
            try await connection.waitFor(.disconnected)
            try await withTimeout(10, "reconnect") { try await connection.connect() }
            let answers = try await withTimeout(10, "the queued requests") {
                [try await first.value, try await second.value]
            }
            #expect(answers == [Response(values: [1]), Response(values: [2])])
            #expect(connection.queuedCommandCount == 0)
            try await connection.disconnect()
            try await connection.release()
            await proxy.stop()
        }
    }
}
