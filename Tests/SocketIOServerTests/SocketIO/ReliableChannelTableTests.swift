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

    /// Expiry takes the detached channels oldest first and stops at the first not yet due; a
    /// channel resumed since it was detached stays, and expires from its latest detach only.
    @Test func expiryTakesTheOldestDetachedFirstAndSkipsTheResumed() throws {
        let table = Box(ReliableChannelTable<String>(expiry: .seconds(100)))
        for (index, id) in ["a", "b", "c", "d"].enumerated() {
            _ = try table.value.resume(id, received: 0, on: index + 1, now: .zero)
        }
        table.value.detach(1, now: .seconds(1))   // a
        table.value.detach(2, now: .seconds(2))   // b, resumed below
        table.value.detach(3, now: .seconds(3))   // c
        _ = try table.value.resume("b", received: 0, on: 5, now: .seconds(4))
        table.value.detach(5, now: .seconds(50))  // b again
        #expect(table.value.expire(now: .seconds(101)).isEmpty)
        #expect(table.value.expire(now: .seconds(103.5)) == ["a", "c"])
        #expect(Set(table.value.channels.keys) == ["b", "d"])
        // A resume expires what is due and says which, so the owner forgets them too.
        let resumed = try table.value.resume("d", received: 0, on: 4, now: .seconds(151))
        #expect(resumed.expired == ["b"])
        #expect(Set(table.value.channels.keys) == ["d"])
    }

    /// Which channel a transport carries follows resumes and detaches, without scanning.
    @Test func theChannelATransportCarriesFollowsResumesAndDetaches() throws {
        let table = Box(ReliableChannelTable<String>())
        _ = try table.value.resume("a", received: 0, on: 1, now: .zero)
        _ = try table.value.resume("b", received: 0, on: 2, now: .zero)
        #expect(table.value.channel(carriedBy: 1) == "a")
        #expect(table.value.channel(carriedBy: 2) == "b")
        // `a` moves to transport 3 while 1 still looks open: 1 carries nothing now, and its
        // detach leaves `a` attached.
        _ = try table.value.resume("a", received: 0, on: 3, now: .seconds(1))
        #expect(table.value.channel(carriedBy: 1) == nil)
        #expect(table.value.channel(carriedBy: 3) == "a")
        table.value.detach(1, now: .seconds(2))
        #expect(table.value.channels["a"]?.attachment == 3)
        table.value.detach(3, now: .seconds(3))
        #expect(table.value.channel(carriedBy: 3) == nil)
        #expect(table.value.channels["a"]?.detachedSince == .seconds(3))
        #expect(table.value.channels["b"]?.attachment == 2)
    }

    @Test func theNumberOfChannelsIsBoundedAndBadResumesAreTyped() throws {
        let table = Box(ReliableChannelTable<String>(maxChannels: 2))
        _ = try table.value.resume("a", received: 0, on: 1, now: .zero)
        _ = try table.value.resume("b", received: 0, on: 2, now: .zero)
        #expect(throws: ReliableChannelTable<String>.Refusal.tooManyChannels(2), "both are carried") {
            try table.value.resume("c", received: 0, on: 3, now: .zero)
        }
        #expect(throws: ReliableChannelTable<String>.Refusal.invalidResume(.resumeBeyondSent(seq: 5, lastSent: 0))) {
            try table.value.resume("a", received: 5, on: 4, now: .zero)
        }
        #expect(table.value.withChannel("nope") { _ in 1 } == nil, "an unknown channel is nil, not a crash")
    }

    /// A full table takes a new channel in place of the one detached longest ago, skipping one
    /// resumed since it was detached; the refusal is for a table whose channels are all carried.
    @Test func aFullTableEvictsTheChannelDetachedLongestAgo() throws {
        let table = Box(ReliableChannelTable<String>(maxChannels: 3, expiry: .seconds(100)))
        for (index, id) in ["a", "b", "c"].enumerated() {
            _ = try table.value.resume(id, received: 0, on: index + 1, now: .zero)
        }
        table.value.detach(1, now: .seconds(1))  // a, resumed below
        table.value.detach(2, now: .seconds(2))  // b
        _ = try table.value.resume("a", received: 0, on: 4, now: .seconds(3))
        #expect(table.value.nextExpiry == .seconds(101), "a's old entry, skipped when due")
        let d = try table.value.resume("d", received: 0, on: 5, now: .seconds(4))
        #expect(d.evicted == "b" && d.expired.isEmpty)
        #expect(Set(table.value.channels.keys) == ["a", "c", "d"])
        #expect(table.value.nextExpiry == nil, "nothing is detached now")
        #expect(throws: ReliableChannelTable<String>.Refusal.tooManyChannels(3)) {
            try table.value.resume("e", received: 0, on: 6, now: .seconds(5))
        }
        // b's client comes back: the table lost its channel, so it starts a new one.
        #expect(throws: ReliableChannelTable<String>.Refusal.unknownChannel("b")) {
            try table.value.resume("b", received: 1, on: 6, now: .seconds(6))
        }
    }
}
