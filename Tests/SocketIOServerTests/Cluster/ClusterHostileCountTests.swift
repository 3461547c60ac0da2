import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Other servers' numbers are read from the cluster's channel, where anyone with access can
/// write: client counts whose sum passes `Int.max` stopped the process (an overflow trap) while
/// a broadcast waited for its acknowledgements. The sum saturates now, and the broadcast times
/// out as one whose acknowledgements never all come.
@Suite struct ClusterHostileCountTests {
    /// Records what this server publishes and hands the test its `deliver`.
    final class TapTransport: ClusterTransport {
        let published = AsyncStream.makeStream(of: ClusterMessage.self)
        let delivers = AsyncStream.makeStream(of: (@Sendable (ClusterMessage) -> Void).self)

        func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws {
            delivers.continuation.yield(deliver)
        }

        func publish(_ message: ClusterMessage) async throws {
            published.continuation.yield(message)
        }

        func shutdown() async {}
    }

    @Test func clientCountsThatOverflowAreSaturated() async throws {
        let transport = TapTransport()
        // The broadcast's timeout runs on this clock: it passes when the test says, after the
        // counts (on the real clock, with a 1 s timeout, a loaded machine once let it pass before
        // the test saw the publish, so the counts came too late: `expected` nil).
        let clock = ManualClock()
        var configuration = SocketIOServer.Configuration(clock: clock)
        configuration.adapter = .cluster(transport)
        let server = SocketIOServer(configuration: configuration)
        let namespace = server.namespace("/")
        let running = try await server.start()
        defer { Task { await running.stop() } }
        let subscribed = try await withTimeout(10, "the subscription") { await transport.delivers.stream.first { _ in true } }
        let deliver = try #require(subscribed)
        // Another server makes itself known, so the broadcast waits for its count.
        deliver(ClusterMessage(uid: "hostile", namespace: "/", payload: .none(.initialHeartbeat)))

        let broadcast = Task { () -> Result<[JSONValue], BroadcastAckTimeout> in
            do throws(BroadcastAckTimeout) {
                return .success(try await namespace.all.emitWithAck("question", items: [], timeout: .seconds(7)))
            } catch {
                return .failure(error)
            }
        }
        let request = try await withTimeout(10, "the broadcast's publish") {
            try await transport.published.stream.first { $0.type == .broadcast }?.payload.requestId
        }
        let requestId = try #require(request)
        for count in [1 << 62, (1 << 62) + (1 << 61)] {  // exact as JSON numbers, their sum past Int.max
            deliver(ClusterMessage(uid: "hostile", namespace: "/", payload: .broadcastClientCount(requestId: requestId, count: count)))
        }
        // Both counts were applied as they were delivered; now the timeout passes, once the
        // broadcast's two timers (the cluster's listener and the gathering) wait for it.
        _ = try await withTimeout(10, "the broadcast's timers") { await clock.waitForSleep(2) { $0 == .seconds(7) } }
        clock.advance(by: .seconds(8))
        let outcome = try await withTimeout(30, "the broadcast timing out") { await broadcast.value }
        guard case .failure(let timeout) = outcome else {
            Issue.record("the broadcast finished: \(outcome)")
            return
        }
        #expect(timeout.responses.isEmpty)
        #expect(timeout.expected == Int.max, "the sum saturated")
    }
}
