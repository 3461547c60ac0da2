import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The server's reliable channels, input by input: open, resume on another transport, expiry,
/// the limits, bad resumes.
@Suite("Reliable channel table")
struct ReliableChannelTableTests {
    @Test func aChannelOpensThenResumesOnAnotherTransportWithWhatWasMissed() throws {
        let table = Box(ReliableChannelTable<String>(maxChannels: 10, expiry: .seconds(120), window: 100))
        let opened = try table.value.resume("c1", received: 0, on: 1, now: .seconds(0))
        #expect(opened.received == 0 && opened.resend.isEmpty && opened.previousAttachment == nil)
        // The server sends three messages; the client acknowledges the first.
        for text in ["a", "b", "c"] { _ = try table.value.withChannel("c1") { try $0.sender.send(text) } }
        _ = try table.value.withChannel("c1") { try $0.sender.acknowledged(through: 1) }
        // The client delivered two server messages (the second arrived, its ack did not) and
        // comes back on transport 2 while transport 1 still looks open.
        let resumed = try table.value.resume("c1", received: 2, on: 2, now: .seconds(5))
        #expect(resumed.resend.map(\.message) == ["c"])
        #expect(resumed.previousAttachment == 1, "the old transport is to be closed")
        #expect(table.value.channels["c1"]?.attachment == 2)
    }

    @Test func aDetachedChannelExpiresAndItsResumeIsRefusedTyped() throws {
        let table = Box(ReliableChannelTable<String>(expiry: .seconds(120)))
        _ = try table.value.resume("c1", received: 0, on: 1, now: .seconds(0))
        _ = try table.value.withChannel("c1") { try $0.sender.send("a") }
        table.value.detach(1, now: .seconds(10))
        #expect(table.value.expire(now: .seconds(100)).isEmpty, "within the expiry")
        #expect(table.value.expire(now: .seconds(131)) == ["c1"])
        #expect(throws: ReliableChannelTable<String>.Refusal.unknownChannel("c1")) {
            try table.value.resume("c1", received: 1, on: 2, now: .seconds(132))
        }
        // A new channel under a fresh id is fine.
        #expect(try table.value.resume("c2", received: 0, on: 2, now: .seconds(132)).received == 0)
    }

    @Test func theNumberOfChannelsIsBoundedAndBadResumesAreTyped() throws {
        let table = Box(ReliableChannelTable<String>(maxChannels: 2))
        _ = try table.value.resume("a", received: 0, on: 1, now: .zero)
        _ = try table.value.resume("b", received: 0, on: 2, now: .zero)
        #expect(throws: ReliableChannelTable<String>.Refusal.tooManyChannels(2)) {
            try table.value.resume("c", received: 0, on: 3, now: .zero)
        }
        #expect(throws: ReliableChannelTable<String>.Refusal.invalidResume(.resumeBeyondSent(seq: 5, lastSent: 0))) {
            try table.value.resume("a", received: 5, on: 4, now: .zero)
        }
        #expect(table.value.withChannel("nope") { _ in 1 } == nil, "an unknown channel is nil, not a crash")
    }
}
