import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import SocketIOServer

/// The channel endpoint's rules, input by input, without sockets or clocks: a link is its id,
/// what the app holds for a channel a string, and time is passed in.
@Suite("ReliableChannelsStateMachine")
struct ReliableChannelsStateMachineTests {
    typealias Machine = ReliableChannelsStateMachine<Int, String>

    static func machine(window: Int = 100, expiry: Duration = .seconds(120), maxChannels: Int = 10) -> Machine {
        Machine(table: ReliableChannelTable(maxChannels: maxChannels, expiry: expiry, window: window))
    }

    /// A machine with channel `c` open on link 1, its outbox drained.
    static func opened(window: Int = 100) -> Machine {
        var machine = machine(window: window)
        _ = machine.attach { $0 }
        _ = machine.resume("c", received: 0, on: 1, now: .zero) { "app:c" }
        _ = machine.takeOutbound(from: 1)
        _ = machine.takeOutbound(from: 1)
        return machine
    }

    /// Everything queued for `link` until its outbox is empty.
    static func drained(_ link: Int, of machine: inout Machine) -> [Envelope] {
        var written: [Envelope] = []
        while let batch = machine.takeOutbound(from: link) { written += batch }
        return written
    }

    static func resumption(_ action: Machine.ResumeAction) -> Machine.Resumption? {
        guard case .resumed(let resumption) = action else { return nil }
        return resumption
    }

    // MARK: - Resume

    @Test func anOpenQueuesResumedAndAnnouncesTheNewChannelOnce() throws {
        var machine = Self.machine()
        let announced = Box<[String]>([])
        machine.setOnChannel { announced.value.append($0) }
        #expect(machine.attach { $0 } == 1)
        let opened = try #require(Self.resumption(machine.resume("c", received: 0, on: 1, now: .zero) { "app:c" }))
        #expect(opened.drain == 1, "the caller drains the new link's outbox")
        #expect(opened.closePrevious == nil && opened.wake.isEmpty)
        let announce = try #require(opened.announce)
        announce.onChannel(announce.channel)
        #expect(announced.value == ["app:c"])
        #expect(Self.drained(1, of: &machine) == [.resumed(channel: "c", received: 0)])
        #expect(machine.channel("c") == "app:c" && machine.count == 1)

        // The same channel resumed on another link: the old one is to be closed, no announcement.
        #expect(machine.attach { $0 } == 2)
        let moved = try #require(Self.resumption(machine.resume("c", received: 0, on: 2, now: .zero) { "unused" }))
        #expect(moved.closePrevious == 1)
        #expect(moved.announce == nil)
        #expect(machine.channel("c") == "app:c", "the app keeps its object (and its handlers)")
    }

    @Test func aResumeQueuesResumedBeforeWhatTheClientLacksInOrder() throws {
        var machine = Self.opened()
        _ = machine.detach(1, now: .seconds(1))
        // Sent while no link carries the channel: kept for the next resume.
        for name in ["a", "b", "c"] {
            #expect(try machine.send(.event(name: name, data: nil), on: "c") == nil)
        }
        _ = machine.attach { $0 }
        let resumed = try #require(Self.resumption(machine.resume("c", received: 1, on: 2, now: .seconds(2)) { "unused" }))
        #expect(resumed.drain == 2)
        #expect(resumed.closePrevious == nil, "the old link was detached already")
        #expect(Self.drained(2, of: &machine) == [
            .resumed(channel: "c", received: 0),
            .event(name: "b", data: nil, seq: 2),
            .event(name: "c", data: nil, seq: 3),
        ])
    }

    @Test func aResumeOfAnUnknownChannelQueuesAnErrorAndKeepsTheLink() {
        var machine = Self.machine()
        _ = machine.attach { $0 }
        guard case .unknownChannel(let drain) = machine.resume("gone", received: 3, on: 1, now: .zero, fresh: { "unused" }) else {
            Issue.record("expected unknownChannel")
            return
        }
        #expect(drain == 1)
        #expect(Self.drained(1, of: &machine) == [.error(id: nil, message: #"unknown or expired channel "gone""#)])
        // The client starts a new channel on the same link.
        #expect(Self.resumption(machine.resume("new", received: 0, on: 1, now: .zero) { "app:new" }) != nil)
    }

    @Test func badResumesAndTooManyChannelsAreRefused() {
        var machine = Self.machine(maxChannels: 1)
        _ = machine.attach { $0 }
        _ = machine.resume("a", received: 0, on: 1, now: .zero) { "app:a" }
        _ = machine.attach { $0 }
        guard case .refuse(let tooMany) = machine.resume("b", received: 0, on: 2, now: .zero, fresh: { "app:b" }) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(tooMany == "too many channels (1)")
        guard case .refuse(let beyond) = machine.resume("a", received: 5, on: 2, now: .zero, fresh: { "unused" }) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(beyond.hasPrefix("cannot resume"))
        #expect(machine.channel("b") == nil)
    }

    /// A transport carries one channel: a resume of another on it is refused (the envelopes on
    /// it would go to either channel, and one connection could fill the table and lock every
    /// other client out); a new transport opens one as before.
    @Test func aTransportThatCarriesAChannelIsRefusedAnother() throws {
        var machine = Self.machine(maxChannels: 2)
        _ = machine.attach { $0 }
        #expect(Self.resumption(machine.resume("a", received: 0, on: 1, now: .zero) { "app:a" }) != nil)
        guard case .refuse(let message) = machine.resume("b", received: 0, on: 1, now: .zero, fresh: { "app:b" }) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(message == #"the transport carries channel "a" already"#)
        #expect(machine.channel("b") == nil && machine.count == 1)
        #expect(machine.channel(carriedBy: 1) == "a")
        _ = machine.attach { $0 }
        #expect(Self.resumption(machine.resume("c", received: 0, on: 2, now: .zero) { "app:c" }) != nil)
        #expect(machine.count == 2 && machine.channel(carriedBy: 2) == "c")
    }

    @Test func anExpiredChannelIsForgottenWithWhatTheAppHeld() {
        var machine = Self.opened()
        _ = machine.detach(1, now: .seconds(10))
        _ = machine.attach { $0 }
        #expect(machine.channel("c") == "app:c", "within the expiry")
        _ = machine.resume("other", received: 0, on: 2, now: .seconds(131)) { "app:other" }
        #expect(machine.channel("c") == nil)
        #expect(machine.count == 1)
    }

    /// A resume that is refused still forgets, with what the app held, the channels that expired
    /// before it (the table forgot them; the app's objects used to stay for good); the senders
    /// waiting for room in their windows are woken (to find them gone, not wait out a deadline).
    @Test func aRefusedResumeForgetsWhatExpiredBeforeIt() throws {
        var machine = Self.opened(window: 1)
        _ = try machine.send(.event(name: "a", data: nil), on: "c")
        let token = machine.reserveRoomWait()
        let waits = machine.waitForRoom(on: "c", token: token)
        #expect(waits, "the window is full")
        _ = machine.detach(1, now: .seconds(10))
        _ = machine.attach { $0 }
        guard case .unknownChannel = machine.resume("gone", received: 3, on: 2, now: .seconds(131), fresh: { "unused" }) else {
            Issue.record("expected an unknown channel")
            return
        }
        #expect(machine.channel("c") == nil)
        #expect(machine.count == 0)
        let released = machine.takeReleased()
        #expect(released.channels == ["app:c"] && released.wake == [token])
    }

    /// A full table makes room for a new channel by forgetting the one detached longest ago
    /// (and what the app held for it); it refuses only when every channel is carried.
    @Test func aFullTableForgetsTheChannelDetachedLongestAgoForANewOne() throws {
        var machine = Self.machine(maxChannels: 2)
        for (link, id) in [(1, "a"), (2, "b")] {
            #expect(machine.attach { $0 } == link)
            _ = machine.resume(id, received: 0, on: link, now: .zero) { "app:\(id)" }
        }
        _ = machine.detach(2, now: .seconds(1))
        _ = machine.detach(1, now: .seconds(2))
        _ = machine.attach { $0 }
        #expect(Self.resumption(machine.resume("c", received: 0, on: 3, now: .seconds(3)) { "app:c" }) != nil)
        #expect(machine.channel("c") == "app:c")
        #expect(machine.channel("b") == nil, "b was detached first")
        #expect(machine.channel("a") == "app:a")
        #expect(machine.count == 2)
        #expect(machine.takeReleased().channels == ["app:b"], "for the owner to release")
        #expect(machine.takeReleased().channels.isEmpty)
        // a is resumed: both channels are carried now, so the next new one is refused.
        _ = machine.attach { $0 }
        _ = machine.resume("a", received: 0, on: 4, now: .seconds(4)) { "unused" }
        _ = machine.attach { $0 }
        guard case .refuse(let message) = machine.resume("d", received: 0, on: 5, now: .seconds(5), fresh: { "app:d" }) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(message == "too many channels (2)")
    }

    /// One expiry timer at a time, however many transports close: armed for the channel detached
    /// longest ago, then again for the next one, and not at all when nothing waits to expire.
    @Test func oneExpiryTimerIsArmedAtATime() {
        var machine = Self.machine(expiry: .seconds(100))
        for link in 1...3 {
            _ = machine.attach { $0 }
            _ = machine.resume("c\(link)", received: 0, on: link, now: .zero) { "app" }
        }
        _ = machine.attach { $0 }  // link 4 never carries a channel
        #expect(machine.detach(4, now: .seconds(1)) == nil, "nothing to expire")
        #expect(machine.detach(1, now: .seconds(10)) == .seconds(100) + .milliseconds(1))
        #expect(machine.detach(2, now: .seconds(20)) == nil, "armed already")
        #expect(machine.detach(3, now: .seconds(30)) == nil, "armed already")
        // c1 expires; the timer is armed again for c2, detached at 20 s.
        #expect(machine.expiryTimerFired(now: .seconds(110) + .milliseconds(1)) == .seconds(10))
        #expect(machine.channel("c1") == nil && machine.count == 2)
        #expect(machine.expiryTimerFired(now: .seconds(120) + .milliseconds(1)) == .seconds(10))
        #expect(machine.expiryTimerFired(now: .seconds(130) + .milliseconds(1)) == nil, "nothing left to expire")
        #expect(machine.count == 0)
        // The next detach arms it again.
        _ = machine.attach { $0 }
        _ = machine.resume("c5", received: 0, on: 5, now: .seconds(140)) { "app" }
        #expect(machine.detach(5, now: .seconds(150)) == .seconds(100) + .milliseconds(1))
    }

    // MARK: - Sending

    @Test func sendsQueueInSequenceOrderAndOnlyTheFirstCallerDrains() throws {
        var machine = Self.opened()
        #expect(try machine.send(.event(name: "a", data: nil), on: "c") == 1, "the first caller drains")
        #expect(try machine.send(.event(name: "b", data: nil), on: "c") == nil, "a second caller only queues")
        #expect(machine.takeOutbound(from: 1) == [.event(name: "a", data: nil, seq: 1), .event(name: "b", data: nil, seq: 2)])
        // Queued while the drainer writes: its next batch.
        #expect(try machine.send(.event(name: "c", data: nil), on: "c") == nil)
        #expect(machine.takeOutbound(from: 1) == [.event(name: "c", data: nil, seq: 3)])
        #expect(machine.takeOutbound(from: 1) == nil, "the drainer stops")
        #expect(try machine.send(.event(name: "d", data: nil), on: "c") == 1, "and the next caller drains")
    }

    @Test func aSendCarriesTheAcknowledgementDueAheadOfIt() throws {
        var machine = Self.opened()
        guard case .deliver(_, _, let receipt) = machine.receive(1, on: 1) else {
            Issue.record("expected deliver")
            return
        }
        _ = machine.handled(receipt, channel: "c", on: 1, answer: nil)
        _ = try machine.send(.reply(id: 4, data: []), on: "c")
        #expect(Self.drained(1, of: &machine) == [.ack(seq: 1), .reply(id: 4, data: [], seq: 1)])
        #expect(machine.ackTimerFired("c") == nil, "the piggybacked acknowledgement left nothing due")
    }

    @Test func aFullWindowAndAGoneChannelAreTyped() throws {
        var machine = Self.opened(window: 1)
        _ = try machine.send(.event(name: "a", data: nil), on: "c")
        #expect(throws: ReliableChannelError.windowFull(window: 1)) { try machine.send(.event(name: "b", data: nil), on: "c") }
        #expect(throws: ReliableChannelError.channelGone) { try machine.send(.event(name: "b", data: nil), on: "nope") }
        #expect(machine.unacknowledgedCount(of: "c") == 1)
    }

    @Test func aDetachedLinkDropsItsOutboxAndItsDrainerStops() throws {
        var machine = Self.opened()
        #expect(try machine.send(.event(name: "a", data: nil), on: "c") == 1)
        _ = machine.detach(1, now: .seconds(1))
        #expect(machine.takeOutbound(from: 1) == nil)
        #expect(machine.unacknowledgedCount(of: "c") == 1, "kept for the next resume")
    }

    // MARK: - Receiving

    @Test func aDeliveredMessageIsAcknowledgedOnceHandledAfterItsAnswer() {
        var machine = Self.opened()
        guard case .deliver(let id, let channel, let receipt) = machine.receive(1, on: 1) else {
            Issue.record("expected deliver")
            return
        }
        #expect(id == "c" && channel == "app:c")
        #expect(receipt == Machine.Receipt(ack: nil, startTimer: true))
        #expect(machine.takeOutbound(from: 1) == nil, "nothing is acknowledged before the handler returns")
        let handled = machine.handled(Machine.Receipt(ack: 1, startTimer: false), channel: "c", on: 1, answer: .error(id: 7, message: "no"))
        #expect(handled.drain == 1 && !handled.armAckTimer)
        #expect(Self.drained(1, of: &machine) == [.error(id: 7, message: "no"), .ack(seq: 1)])
    }

    /// The client resumed the channel on another transport while the handler ran: the answer
    /// (an unnumbered `error`, never sent again) goes where the client listens now.
    @Test func anAnswerGoesOnTheTransportThatCarriesTheChannelWhenTheHandlerReturns() {
        var machine = Self.opened()
        guard case .deliver(_, _, _) = machine.receive(1, on: 1) else {
            Issue.record("expected deliver")
            return
        }
        #expect(machine.attach { $0 } == 2)
        _ = machine.resume("c", received: 0, on: 2, now: .zero) { "unused" }
        _ = Self.drained(2, of: &machine)
        let handled = machine.handled(Machine.Receipt(ack: 1, startTimer: false), channel: "c", on: 1, answer: .error(id: 7, message: "no"))
        #expect(handled.drain == 2)
        #expect(Self.drained(2, of: &machine) == [.error(id: 7, message: "no"), .ack(seq: 1)])
        #expect(machine.takeOutbound(from: 1) == nil)
    }

    /// No transport carries the channel when the handler returns: the answer waits for the
    /// next resume and goes right after its `resumed` (which acknowledges the request).
    @Test func anAnswerMadeWhileNoTransportCarriesTheChannelFollowsTheNextResumed() {
        var machine = Self.opened()
        guard case .deliver(_, _, _) = machine.receive(1, on: 1) else {
            Issue.record("expected deliver")
            return
        }
        _ = machine.detach(1, now: .zero)
        let handled = machine.handled(Machine.Receipt(ack: 1, startTimer: false), channel: "c", on: 1, answer: .error(id: 7, message: "no"))
        #expect(handled.drain == nil)
        #expect(machine.attach { $0 } == 2)
        _ = machine.resume("c", received: 0, on: 2, now: .seconds(1)) { "unused" }
        #expect(Self.drained(2, of: &machine) == [.resumed(channel: "c", received: 1), .error(id: 7, message: "no")])
        #expect(machine.attach { $0 } == 3)
        _ = machine.resume("c", received: 0, on: 3, now: .seconds(2)) { "unused" }
        #expect(Self.drained(3, of: &machine) == [.resumed(channel: "c", received: 1)], "once")
    }

    @Test func theAcknowledgementTimerIsArmedOnceAndItsFiringQueuesWhatIsDue() {
        var machine = Self.opened()
        for seq in 1...2 {
            guard case .deliver(_, _, let receipt) = machine.receive(UInt64(seq), on: 1) else {
                Issue.record("expected deliver")
                return
            }
            let handled = machine.handled(receipt, channel: "c", on: 1, answer: nil)
            #expect(handled.armAckTimer == (seq == 1), "one timer at a time")
            #expect(handled.drain == nil, "nothing to write yet")
        }
        #expect(machine.ackTimerFired("c") == 1)
        #expect(Self.drained(1, of: &machine) == [.ack(seq: 2)])
        guard case .deliver(_, _, let receipt) = machine.receive(3, on: 1) else {
            Issue.record("expected deliver")
            return
        }
        #expect(machine.handled(receipt, channel: "c", on: 1, answer: nil).armAckTimer, "armed again after it fired")
    }

    @Test func aRepeatIsAcknowledgedAtOnceAndAGapIsRefused() {
        var machine = Self.opened()
        guard case .deliver = machine.receive(1, on: 1) else {
            Issue.record("expected deliver")
            return
        }
        guard case .duplicate(let drain) = machine.receive(1, on: 1) else {
            Issue.record("expected duplicate")
            return
        }
        #expect(drain == 1)
        #expect(Self.drained(1, of: &machine) == [.ack(seq: 1)])
        guard case .refuse(let gap) = machine.receive(5, on: 1) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(gap == "\(ReliableChannelError.gap(expected: 2, got: 5))")
    }

    @Test func aMessageOnALinkWithoutAChannelIsRefusedUnlessTheLinkIsGone() {
        var machine = Self.opened()
        _ = machine.attach { $0 }
        guard case .refuse(let message) = machine.receive(1, on: 2) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(message == "resume a channel first")
        // Link 2 takes the channel over; link 1's handler task is still at work, then detached.
        _ = machine.resume("c", received: 0, on: 2, now: .zero) { "unused" }
        _ = machine.detach(1, now: .zero)
        guard case .stop = machine.receive(1, on: 1) else {
            Issue.record("expected stop")
            return
        }
    }

    // MARK: - Acknowledgements and room

    @Test func anAcknowledgementWakesTheSendersWaitingForRoom() throws {
        var machine = Self.opened(window: 2)
        _ = try machine.send(.event(name: "a", data: nil), on: "c")
        _ = try machine.send(.event(name: "b", data: nil), on: "c")
        let first = machine.reserveRoomWait()
        let second = machine.reserveRoomWait()
        #expect(first != second)
        let firstWaits = machine.waitForRoom(on: "c", token: first)
        let secondWaits = machine.waitForRoom(on: "c", token: second)
        #expect(firstWaits && secondWaits, "the window is full")
        #expect(machine.acknowledge(through: 1, on: 1) == .wake([first, second]))
        #expect(machine.unacknowledgedCount(of: "c") == 1)
        let third = machine.reserveRoomWait()
        let waitsWithRoom = machine.waitForRoom(on: "c", token: third)
        #expect(!waitsWithRoom, "room now: no wait")
        let waitsForNothing = machine.waitForRoom(on: "gone", token: third)
        #expect(!waitsForNothing, "no channel: no wait")
    }

    @Test func aSenderWhoseDeadlinePassedIsNotWokenAgain() throws {
        var machine = Self.opened(window: 1)
        _ = try machine.send(.event(name: "a", data: nil), on: "c")
        let token = machine.reserveRoomWait()
        let waits = machine.waitForRoom(on: "c", token: token)
        #expect(waits)
        machine.roomWaitEnded(token, on: "c")
        #expect(machine.acknowledge(through: 1, on: 1) == .wake([]))
    }

    @Test func aResumeWakesTheSendersWaitingForRoom() throws {
        var machine = Self.opened(window: 1)
        _ = try machine.send(.event(name: "a", data: nil), on: "c")
        let token = machine.reserveRoomWait()
        let waits = machine.waitForRoom(on: "c", token: token)
        #expect(waits)
        _ = machine.attach { $0 }
        let resumed = try #require(Self.resumption(machine.resume("c", received: 1, on: 2, now: .zero) { "unused" }))
        #expect(resumed.wake == [token])
        #expect(Self.drained(2, of: &machine) == [.resumed(channel: "c", received: 0)], "nothing left to send again")
    }

    @Test func badAcknowledgementsAreRefused() throws {
        var machine = Self.opened()
        _ = try machine.send(.event(name: "a", data: nil), on: "c")
        #expect(machine.acknowledge(through: 2, on: 1) == .refuse("\(ReliableChannelError.ackBeyondSent(seq: 2, lastSent: 1))"))
        _ = machine.attach { $0 }
        #expect(machine.acknowledge(through: 1, on: 2) == .refuse("\(ReliableChannelError.ackBeyondSent(seq: 1, lastSent: 0))"),
                "a link without a channel has sent nothing")
    }

    @Test func requestIDsAreUniqueAndTheLinkCarryingAChannelIsFound() {
        var machine = Self.opened()
        #expect(machine.nextRequest() == 0)
        #expect(machine.nextRequest() == 1)
        #expect(machine.channel(carriedBy: 1) == "c")
        #expect(machine.channel(carriedBy: 9) == nil)
        #expect(machine.diagnostics.count == 1)
    }
}
