import Foundation
import Switchboard
import SwitchboardTestSupport
import Testing

/// `FailoverDriver.request` used directly (not through a connection, which keeps its own
/// deadline) ends as soon as its task is cancelled. Before, the wait had no cancellation
/// handler: a cancelled caller waited out the whole timeout, and one cancelled before it asked
/// still sent the request.
@Suite struct FailoverRequestCancellationTests {
    /// A driver that is never opened: its sends are numbered and kept for the first resume, so
    /// a request waits for a reply that cannot come. Its deadlines run on `clock`.
    static func unopened(_ clock: ManualClock) -> FailoverDriver {
        var options = FailoverDriver.Options(
            webSocketURL: URL(string: "ws://127.0.0.1:1/ws")!, socketIOURL: URL(string: "http://127.0.0.1:1")!
        )
        options.networkMonitor = nil
        options.clock = clock
        return FailoverDriver(options: options, policy: .pinned(to: .webSocket))
    }

    @Test func cancellingTheCallerEndsTheWaitAtOnce() async throws {
        let clock = ManualClock()
        let driver = Self.unopened(clock)
        let asking = Task { try await driver.request("ask", 1, timeout: .seconds(600)) }
        // Its deadline sleeps once it is registered.
        try await withTimeout(30, "the request's deadline") { await clock.waitForSleeper(dueAt: .seconds(600)) }
        #expect(driver.unacknowledgedCount == 1, "sent (kept for the first resume)")
        asking.cancel()
        await #expect(throws: ConnectionError.cancelled) {
            try await withTimeout(30, "the cancelled request") { try await asking.value }
        }
        await driver.close()
    }

    @Test func aCallerCancelledBeforeItAsksSendsNothing() async throws {
        let driver = Self.unopened(ManualClock())
        let asking = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await driver.request("ask", 1, timeout: .seconds(600))
        }
        await #expect(throws: ConnectionError.cancelled) {
            try await withTimeout(30, "the cancelled request") { try await asking.value }
        }
        #expect(driver.unacknowledgedCount == 0, "nothing numbered, nothing to be sent later")
        await driver.close()
    }
}
