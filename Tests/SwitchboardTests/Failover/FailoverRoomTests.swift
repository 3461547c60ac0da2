import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// Sends waiting for room in a failover channel's window, without links or real time: the
/// machine's line (who is admitted, in which order) event by event, and the driver's waiting
/// callers on a ``ManualClock``.
@Suite("Failover window: waiting for room")
struct FailoverRoomTests {
    typealias Machine = FailoverChannelStateMachineTests.Machine

    /// A channel open on "L1" (generation 1) whose window of 3 is full: messages 1, 2 and 3 sent.
    static func full() throws -> Machine {
        var machine = FailoverChannelStateMachineTests.connected()
        for number in 1...3 { _ = try machine.send(.event(name: "up", data: .number(Double(number))), now: .zero) }
        return machine
    }

    static func ack(_ seq: UInt64, _ machine: inout Machine, generation: Int = 1) -> [Int] {
        machine.linkReported(.envelope(.success(.ack(seq: seq))), generation: generation, now: .zero).admit
    }

    static func up(_ number: Int) -> FailoverChannel.Outgoing { .event(name: "up", data: .number(Double(number))) }

    // MARK: - The machine's line

    @Test func aFullWindowMakesASendWaitAndAnAcknowledgementLetsItIn() throws {
        var machine = try Self.full()
        #expect(throws: ReliableChannelError.windowFull(window: 3)) { try machine.send(Self.up(4), now: .zero) }
        let token = machine.ledger.roomToken()
        #expect(machine.waitForRoom(token) == .waiting)
        #expect(Self.ack(1, &machine) == [token], "the acknowledgement wakes the waiter")
        _ = try machine.send(Self.up(4), holding: token, now: .zero)
        #expect(machine.ledger.sender.lastSent == 4)
        #expect(machine.ledger.room.waiting.isEmpty && machine.ledger.room.holding.isEmpty, "its slot is a message now")
    }

    @Test func waitersAreAdmittedFirstComeFirstServedAndNobodyTakesTheirRoom() throws {
        var machine = try Self.full()
        let first = machine.ledger.roomToken()
        let second = machine.ledger.roomToken()
        let third = machine.ledger.roomToken()
        for token in [first, second, third] { #expect(machine.waitForRoom(token) == .waiting) }
        #expect(Self.ack(1, &machine) == [first])
        #expect(throws: ReliableChannelError.windowFull(window: 3), "the freed slot is the first waiter's") {
            try machine.send(Self.up(9), now: .zero)
        }
        #expect(Self.ack(3, &machine) == [second, third], "two more slots: the next two, in order")
        #expect(Self.ack(3, &machine) == [], "an old acknowledgement makes no room")
        for (number, token) in [(4, third), (5, first), (6, second)] { _ = try machine.send(Self.up(number), holding: token, now: .zero) }
        #expect(machine.ledger.sender.lastSent == 6)
        #expect(throws: ReliableChannelError.windowFull(window: 3)) { try machine.send(Self.up(7), now: .zero) }
    }

    @Test func aWaiterThatGivesUpLeavesTheLineAndASlotItHeldPassesOn() throws {
        var machine = try Self.full()
        let first = machine.ledger.roomToken()
        let second = machine.ledger.roomToken()
        #expect(machine.waitForRoom(first) == .waiting)
        #expect(machine.waitForRoom(second) == .waiting)
        #expect(machine.ledger.roomWaitEnded(second) == [], "it leaves the line")
        #expect(Self.ack(1, &machine) == [first])
        let third = machine.ledger.roomToken()
        #expect(machine.waitForRoom(third) == .waiting)
        #expect(machine.ledger.roomWaitEnded(first) == [third], "admitted, then gave up (cancelled, timed out): the slot passes on")
        #expect(machine.ledger.roomWaitEnded(first) == [], "once")
        #expect(machine.ledger.room.waiting.isEmpty && machine.ledger.room.holding == [third])
        #expect(machine.ledger.roomWaitEnded(third) == [])
        _ = try machine.send(Self.up(4), now: .zero)  // nothing held, nobody waits: room for anyone
    }

    @Test func aResumeAcknowledgesWhatTheServerHadAndAdmits() throws {
        var machine = try Self.full()
        let token = machine.ledger.roomToken()
        #expect(machine.waitForRoom(token) == .waiting)
        _ = machine.linkReported(.ended("cut"), generation: 1, now: .zero)
        let started = machine.attemptStarting(newChannel: nil)
        let attempt = try #require(started?.attempt)
        _ = machine.resumeStarting(generation: attempt.generation, link: "L2", transport: .webSocket, waiter: 2, newChannel: nil)
        let resumed = machine.linkReported(
            .envelope(.success(.resumed(channel: "c1", received: 2))), generation: attempt.generation, now: .zero
        )
        #expect(resumed.admit == [token])
    }

    @Test func roomIsTakenAtOnceWhenItWasMadeBeforeTheWaiterLinedUp() throws {
        var machine = try Self.full()
        let token = machine.ledger.roomToken()  // the send found the window full…
        _ = Self.ack(1, &machine)  // …and an acknowledgement arrived before it lined up
        #expect(machine.waitForRoom(token) == .holding)
    }

    @Test func nothingMakesRoomWhileTheChannelIsClosed() throws {
        var machine = try Self.full()
        _ = machine.close()
        #expect(machine.waitForRoom(machine.ledger.roomToken()) == .closed)
        #expect(machine.ledger.room.waiting.isEmpty)
    }

    // MARK: - The waiting callers

    /// Waits for token 1 with `line`'s answer, counting the calls of `ended`.
    static func wait(
        _ waits: FailoverRoomWaits, line: FailoverChannel.RoomWait = .waiting, ended: NIOLockedValueBox<Int>
    ) -> Task<Void, any Error> {
        Task {
            try await waits.wait(
                1, upTo: .seconds(5), closed: .connectionLost("the channel closed"),
                line: { line }, ended: { ended.withLockedValue { $0 += 1 }; return [] }
            )
        }
    }

    @Test func anAdmittedWaiterGoesOn() async throws {
        let clock = ManualClock()
        let waits = FailoverRoomWaits(window: 3, timeline: Timeline(clock))
        let ended = NIOLockedValueBox(0)
        let waiting = Self.wait(waits, ended: ended)
        await clock.waitForSleepers(1)  // registered, with its deadline
        waits.admit([1])
        try await waiting.value
        #expect(ended.withLockedValue { $0 } == 0 && waits.count == 0)
    }

    @Test func theBoundPassingFailsTheWaiterWithQueueFull() async throws {
        let clock = ManualClock()
        let waits = FailoverRoomWaits(window: 3, timeline: Timeline(clock))
        let ended = NIOLockedValueBox(0)
        let waiting = Self.wait(waits, ended: ended)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await #expect(throws: ConnectionError.queueFull(limit: 3)) { try await waiting.value }
        #expect(ended.withLockedValue { $0 } == 1, "it left the machine's line")
        #expect(waits.count == 0)
    }

    @Test func cancellingTheWaiterFailsItAtOnceAndLeavesNothing() async throws {
        let clock = ManualClock()
        let waits = FailoverRoomWaits(window: 3, timeline: Timeline(clock))
        let ended = NIOLockedValueBox(0)
        let waiting = Self.wait(waits, ended: ended)
        await clock.waitForSleepers(1)
        waiting.cancel()
        await #expect(throws: ConnectionError.cancelled) { try await waiting.value }
        #expect(ended.withLockedValue { $0 } == 1 && waits.count == 0)

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }  // cancelled before it waits
            try await waits.wait(2, upTo: .seconds(5), closed: .released, line: { .waiting }, ended: { [] })
        }
        await #expect(throws: ConnectionError.cancelled) { try await early.value }
        #expect(waits.count == 0)
    }

    @Test func closingFailsTheWaiterLikeTheChannelsOtherPendingCalls() async throws {
        let clock = ManualClock()
        let waits = FailoverRoomWaits(window: 3, timeline: Timeline(clock))
        let ended = NIOLockedValueBox(0)
        let waiting = Self.wait(waits, ended: ended)
        await clock.waitForSleepers(1)
        waits.failAll(with: FailoverDriver.closed)
        await #expect(throws: ConnectionError.connectionLost("the channel closed")) { try await waiting.value }
        #expect(ended.withLockedValue { $0 } == 1 && waits.count == 0)

        let late = Self.wait(waits, line: .closed, ended: ended)  // lines up after the close
        await #expect(throws: ConnectionError.connectionLost("the channel closed")) { try await late.value }
    }
}
