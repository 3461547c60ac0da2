import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard
import SwitchboardTesting

/// The in-memory driver's waits end when their caller was cancelled before they were
/// registered: before, the cancellation handler ran first and found nothing, the wait was then
/// registered, and the caller hung (an open held by `.hold`, a request nobody handles).
@Suite(.timeLimit(.minutes(1)))
struct InMemoryCancellationTests {
    @Test func anOpenCancelledBeforeItIsHeldEnds() async throws {
        let server = InMemoryServer()
        server.connectBehavior = .hold
        let driver = InMemoryDriver(server: server)
        let open = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await driver.open { _ in }
        }
        await #expect(throws: CancellationError.self) {
            try await withTimeout(5, "the cancelled open") { try await open.value }
        }
    }

    @Test func aRequestCancelledBeforeItWaitsEnds() async throws {
        let server = InMemoryServer()
        let driver = InMemoryDriver(server: server)
        try await driver.open { _ in }
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await driver.request("nobody handles this", .null, timeout: .seconds(60))
        }
        await #expect(throws: CancellationError.self) {
            try await withTimeout(5, "the cancelled request") { try await request.value }
        }
    }
}
