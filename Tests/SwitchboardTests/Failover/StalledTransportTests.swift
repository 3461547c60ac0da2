import Foundation
import Harness
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// A transport that stalls — still open, no bytes either way, no close — is noticed by the
/// acknowledgement deadline, abandoned, and the channel resumes on a new connection with
/// nothing lost or doubled. Without the deadline the channel would wait forever.
@Suite struct StalledTransportTests {
    @Test func aStalledTransportIsAbandonedAtTheAckDeadlineAndNothingIsLost() async throws {
        let received = NIOLockedValueBox<[Int]>([])
        let progress = AsyncStream<Int>.makeStream()
        let setup = try await PinnedChannel.open(
            adjust: { options in
                options.ackTimeout = .milliseconds(500)
                options.tickInterval = .milliseconds(100)
            },
            handlers: { channel in
                channel.on("n") { payload in
                    let count = received.withLockedValue { received in
                        received.append(payload.intValue ?? -1)
                        return received.count
                    }
                    progress.continuation.yield(count)
                }
            }
        )
        for number in 0..<100 { try await setup.connection.send("n", .number(Double(number))) }
        _ = try await progress.stream.firstMatch(within: 20, "the first hundred") { $0 >= 100 }

        setup.proxy.stallAll()
        for number in 100..<200 { try await setup.connection.send("n", .number(Double(number))) }
        _ = try await progress.stream.firstMatch(within: 20, "the hundred sent into the stall") { $0 >= 200 }

        #expect(received.withLockedValue { $0 } == Array(0..<200), "once each, in order")
        #expect(setup.served.withLockedValue { $0 } >= 2, "resumed on a new connection")
        #expect(setup.connection.state == .connected, "the connection above never noticed")
        await setup.stop()
    }
}
