import Foundation
import Harness
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// `FailoverDriver.send(_:_:waitingUpTo:)` against the embedded server: the server's handler
/// holds the first message, so nothing is acknowledged and a window of one or two is full until
/// the test lets it go — no sleeps, every step awaits what it needs.
@Suite struct WaitingForRoomTests {
    /// The server's side: what its `up` handler handled, in order; the first message waits for `gate`.
    final class Server: Sendable {
        let gate = AsyncStream<Void>.makeStream()
        let handled = NIOLockedValueBox<[Int]>([])
        let progress = AsyncStream<Int>.makeStream()

        func handlers(_ channel: ReliableChannel) {
            channel.on("up") { [self] payload in
                let number = payload.intValue ?? -1
                if number == 1 { for await _ in gate.stream { break } }
                progress.continuation.yield(handled.withLockedValue { $0.append(number); return $0.count })
            }
        }

        /// Lets every held handler go (also at the end, so the server can stop).
        func open() { gate.continuation.finish() }
    }

    static func open(window: Int, _ server: Server) async throws -> PinnedChannel {
        try await PinnedChannel.open(adjust: { $0.window = window }, handlers: server.handlers)
    }

    @Test func aSendWaitsForTheServersAcknowledgementAndGoesOutInOrder() async throws {
        let server = Server()
        let setup = try await Self.open(window: 2, server)
        try await setup.driver.send("up", 1)
        try await setup.driver.send("up", 2)
        await #expect(throws: ConnectionError.queueFull(limit: 2), "full: the server holds message 1") {
            try await setup.driver.send("up", 3)
        }
        let waiting = Task { try await setup.driver.send("up", 3, waitingUpTo: .seconds(60)) }
        #expect(setup.driver.unacknowledgedCount == 2)
        server.open()  // the server handles 1 and 2 and acknowledges them: room for 3
        try await withTimeout(30, "the waiting send") { try await waiting.value }
        try await setup.driver.send("up", 4, waitingUpTo: .seconds(60))
        _ = try await server.progress.stream.firstMatch(within: 30, "four handled") { $0 >= 4 }
        #expect(server.handled.withLockedValue { $0 } == [1, 2, 3, 4])
        await setup.stop()
    }

    @Test func aRequestWaitsForRoomToo() async throws {
        let server = Server()
        let setup = try await PinnedChannel.open(adjust: { $0.window = 1 }) { channel in
            server.handlers(channel)
            channel.onRequest("echo") { [$0] }
        }
        try await setup.driver.send("up", 1)
        let request = Task { try await setup.driver.request("echo", "hi", timeout: .seconds(30), waitingUpTo: .seconds(60)) }
        server.open()
        let reply = try await withTimeout(30, "the waiting request") { try await request.value }
        #expect(reply.value == "hi")
        await setup.stop()
    }

    @Test func cancellingAWaitingSendEndsItAtOnceAndTheNextGetsTheRoom() async throws {
        let server = Server()
        let setup = try await Self.open(window: 1, server)
        try await setup.driver.send("up", 1)
        let cancelled = Task { try await setup.driver.send("up", 2, waitingUpTo: .seconds(60)) }
        cancelled.cancel()
        _ = try await withTimeout(10, "the cancelled send") {
            await #expect(throws: ConnectionError.cancelled) { try await cancelled.value }
        }
        let next = Task { try await setup.driver.send("up", 3, waitingUpTo: .seconds(60)) }
        server.open()
        try await withTimeout(30, "the next waiting send") { try await next.value }
        _ = try await server.progress.stream.firstMatch(within: 30, "two handled") { $0 >= 2 }
        #expect(server.handled.withLockedValue { $0 } == [1, 3], "the cancelled send was never sent")
        await setup.stop()
    }

    @Test func disconnectingFailsAWaitingSendLikeAWaitingRequest() async throws {
        let server = Server()
        let setup = try await Self.open(window: 1, server)
        try await setup.driver.send("up", 1)
        let waiting = Task { try await setup.driver.send("up", 2, waitingUpTo: .seconds(60)) }
        try await setup.connection.disconnect()
        _ = try await withTimeout(10, "the waiting send") {
            await #expect(throws: ConnectionError.connectionLost("the channel closed")) { try await waiting.value }
        }
        server.open()
        await setup.stop()
    }
}
