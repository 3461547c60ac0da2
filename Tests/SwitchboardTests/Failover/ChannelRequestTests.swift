import Foundation
import Harness
import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// The server asks, feature code answers: `ReliableChannel.request` on the server, a channel
/// connection's `requests(named:)` on the client — the reply numbered like every channel message,
/// so it arrives once even when the transport dies as it is sent.
@Suite struct ChannelRequestTests {
    @Test func theServerAsksAndGetsTheAnswerOnceEvenWhenTheTransportDiesMeanwhile() async throws {
        let setup = try await PinnedChannel.open()
        let asks = setup.connection.requests(named: "ask")
        let answering = Task {
            var answered = 0
            for await request in asks {
                answered += 1
                if answered == 2 {
                    // The second answer goes out just after the transport died (the proxy's
                    // sockets are closed, the client has not noticed yet) and stays down a while:
                    // the server can only get it on the next connection.
                    setup.proxy.refuseNewConnections(true)
                    await setup.proxy.cutAllAndWait()
                }
                try request.reply(.string("answer to \(request.payload.intValue ?? -1)"))
                if answered == 2 { setup.proxy.refuseNewConnections(false) }
            }
        }
        let first = try await setup.channel.request("ask", 1, timeout: .seconds(30))
        #expect(first == ["answer to 1"])
        let second = try await setup.channel.request("ask", 2, timeout: .seconds(30))
        #expect(second == ["answer to 2"], "numbered, kept and sent again after the resume")
        #expect(setup.served.withLockedValue { $0 } >= 2, "the channel resumed on a new connection")
        let third = try await setup.channel.request("ask", 3, timeout: .seconds(30))
        #expect(third == ["answer to 3"], "and the channel carries on")
        answering.cancel()
        await setup.stop()
    }

    @Test func aRequestNobodyListensForIsDeclinedOneNeverAnsweredTimesOut() async throws {
        let setup = try await PinnedChannel.open()
        do {
            _ = try await setup.channel.request("nobody-listens", nil, timeout: .seconds(30))
            Issue.record("expected a decline")
        } catch {
            #expect(error == .declined(#"no handler for "nobody-listens""#))
        }
        let ignored = setup.connection.requests(named: "ignored")
        let holding = Task { for await _ in ignored {} }  // heard, never answered
        do {
            _ = try await setup.channel.request("ignored", nil, timeout: .milliseconds(200))
            Issue.record("expected a timeout")
        } catch {
            #expect(error == .timedOut(event: "ignored", after: .milliseconds(200)))
        }
        holding.cancel()
        await setup.stop()
    }
}
