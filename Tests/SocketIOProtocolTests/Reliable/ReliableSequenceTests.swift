import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// The reliable channel's sender and receiver, input by input (SPEC.md part E).
@Suite("Reliable channel sequence")
struct ReliableSequenceTests {
    @Test func theSenderNumbersFromOneAndReleasesCumulatively() throws {
        let sender = Box(ReliableSender<String>(window: 10))
        #expect(sender.value.lastSent == 0)
        #expect(try sender.value.send("a") == 1)
        #expect(try sender.value.send("b") == 2)
        #expect(try sender.value.send("c") == 3)
        #expect(try sender.value.acknowledged(through: 2) == 2)
        #expect(sender.value.unacknowledged.map(\.message) == ["c"])
        #expect(try sender.value.acknowledged(through: 1) == 0, "an old acknowledgement changes nothing")
        #expect(throws: ReliableChannelError.ackBeyondSent(seq: 4, lastSent: 3)) { try sender.value.acknowledged(through: 4) }
    }

    @Test func theWindowBoundsWhatWaitsAndNothingIsDropped() throws {
        let sender = Box(ReliableSender<Int>(window: 2))
        _ = try sender.value.send(1)
        _ = try sender.value.send(2)
        #expect(throws: ReliableChannelError.windowFull(window: 2)) { try sender.value.send(3) }
        #expect(sender.value.unacknowledged.map(\.message) == [1, 2])
        try sender.value.acknowledged(through: 1)
        #expect(try sender.value.send(3) == 3, "room again once acknowledged")
    }

    @Test func aResumeResendsWhatThePeerDidNotReceiveInOrder() throws {
        let sender = Box(ReliableSender<String>(window: 10))
        for text in ["a", "b", "c", "d"] { _ = try sender.value.send(text) }
        try sender.value.acknowledged(through: 1)
        let again = try sender.value.resume(peerReceived: 2)
        #expect(again.map(\.seq) == [3, 4])
        #expect(again.map(\.message) == ["c", "d"])
        #expect(try sender.value.resume(peerReceived: 4).isEmpty)
        #expect(throws: ReliableChannelError.resumeBeyondSent(seq: 9, lastSent: 4)) { try sender.value.resume(peerReceived: 9) }
    }

    @Test func aResumeFromBeforeWhatIsKeptCannotContinue() throws {
        let sender = Box(ReliableSender<String>(window: 10))
        for text in ["a", "b", "c"] { _ = try sender.value.send(text) }
        try sender.value.acknowledged(through: 2)
        #expect(throws: ReliableChannelError.resumeBeforeWindow(received: 0, firstKept: 3)) {
            try sender.value.resume(peerReceived: 0)
        }
    }

    @Test func theReceiverDeliversInOrderDropsRepeatsAndRejectsGaps() throws {
        let receiver = Box(ReliableReceiver(ackEvery: 3))
        #expect(try receiver.value.received(1) == .deliver(ack: nil, startTimer: true))
        #expect(try receiver.value.received(2) == .deliver(ack: nil, startTimer: true))
        #expect(try receiver.value.received(3) == .deliver(ack: 3, startTimer: false), "every third: acknowledged at once")
        #expect(try receiver.value.received(2) == .duplicate(ack: 3), "a repeat is dropped and acknowledged")
        #expect(throws: ReliableChannelError.gap(expected: 4, got: 6)) { try receiver.value.received(6) }
        #expect(receiver.value.delivered == 3, "the gap changed nothing")
    }

    @Test func theTimerAcknowledgesOnlyWhatIsNew() throws {
        let receiver = Box(ReliableReceiver(ackEvery: 100))
        #expect(receiver.value.ackDue() == nil)
        _ = try receiver.value.received(1)
        _ = try receiver.value.received(2)
        #expect(receiver.value.ackDue() == 2, "one acknowledgement for both")
        #expect(receiver.value.ackDue() == nil)
        _ = try receiver.value.received(3)
        #expect(receiver.value.resumePoint() == 3)
        #expect(receiver.value.ackDue() == nil, "the resume told the peer already")
    }

    /// Both halves together across switches: a lossy "transport" that drops what was in flight at
    /// each switch; after every resume the receiver has each message once, in order.
    @Test func exactlyOnceInOrderAcrossManySwitches() throws {
        let sender = Box(ReliableSender<Int>(window: 64))
        let receiver = Box(ReliableReceiver(ackEvery: 8))
        var received: [Int] = []
        var inFlight: [(UInt64, Int)] = []
        var next = 0
        var generator = SplitMix64(seed: 7)
        var switches = 0
        while received.count < 5_000, switches < 100_000 {
            switches += 1
            // Send what fits, some of it arriving.
            while next < 5_000, sender.value.unacknowledged.count < sender.value.window {
                inFlight.append((try sender.value.send(next), next))
                next += 1
                if Int.random(in: 0..<4, using: &generator) == 0 { break }
            }
            let arriving = Int.random(in: 0...inFlight.count, using: &generator)
            for (seq, message) in inFlight.prefix(arriving) {
                switch try receiver.value.received(seq) {
                case .deliver(let ack, _):
                    received.append(message)
                    if let ack { try sender.value.acknowledged(through: ack) }
                case .duplicate(let ack):
                    try sender.value.acknowledged(through: ack)
                }
            }
            // The switch: the rest is lost; the new transport resumes and resends.
            inFlight = try sender.value.resume(peerReceived: receiver.value.resumePoint()).map { ($0.seq, $0.message) }
        }
        #expect(received == Array(0..<5_000), "every message once, in order, after \(switches) switches")
        #expect(sender.value.unacknowledged.count <= sender.value.window)
    }
}
