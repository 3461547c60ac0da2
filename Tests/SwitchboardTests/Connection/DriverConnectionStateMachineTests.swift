import SocketIOProtocol
import SwitchboardCore
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// ``DriverConnectionStateMachine`` driven event by event: waiters are plain strings, time is a
/// ``ManualClock``; no driver, no tasks, no sleeps.
@Suite struct DriverConnectionStateMachineTests {
    typealias Machine = DriverConnectionStateMachine<String, String>

    let clock = ManualClock()

    func pending(_ event: String, timeout: Duration = .seconds(5)) -> Machine.PendingRequest {
        Machine.PendingRequest(event: event, payload: .null, timeout: timeout, stopwatch: Timeline(clock))
    }

    /// A machine connected through attempt 1, with nothing queued.
    func connected(queueLimit: Int = 10) -> Machine {
        var machine = Machine(queueLimit: queueLimit)
        let id = machine.makeID()
        let action = machine.connect(id, waiter: "c")
        guard case .open(let attempt)? = action.run else { Issue.record("no open"); return machine }
        _ = machine.openFinished(attempt, recovered: true, failure: nil)
        return machine
    }

    // MARK: - Connecting

    @Test func theFirstConnectOpensAndASecondJoinsTheSameAttempt() {
        var machine = Machine(queueLimit: 10)
        let first = machine.connect(machine.makeID(), waiter: "a")
        guard case .open(let attempt)? = first.run else { Issue.record("expected an open, got \(String(describing: first.run))"); return }
        let second = machine.connect(machine.makeID(), waiter: "b")
        #expect(second.run == nil && second.failure == nil, "joins the open in flight")
        let finished = machine.openFinished(attempt, recovered: false, failure: nil)
        #expect(Set(finished.waiters) == ["a", "b"])
        #expect(machine.connectionState == .connected)
        #expect(machine.recovered == false)
        #expect(finished.run == nil && !finished.flush, "nothing queued, no driver operation waiting")
    }

    @Test func connectingWhileConnectedIsRefused() {
        var machine = connected()
        let action = machine.connect(machine.makeID(), waiter: "late")
        #expect(action.failure == .notAllowed(operation: .connect, state: .connected))
        #expect(action.run == nil)
    }

    @Test func aFailedOpenFailsItsWaitersAndKeepsTheError() {
        var machine = Machine(queueLimit: 10)
        guard case .open(let attempt)? = machine.connect(machine.makeID(), waiter: "a").run else { Issue.record("no open"); return }
        let finished = machine.openFinished(attempt, recovered: nil, failure: .connectFailed("refused"))
        #expect(finished.waiters == ["a"])
        #expect(machine.connectionState == .disconnected)
        #expect(machine.lastError == "\(ConnectionError.connectFailed("refused"))")
    }

    @Test func aCancelledConnectCallerLeavesAndIsNotAnsweredTwice() {
        var machine = Machine(queueLimit: 10)
        let id = machine.makeID()
        guard case .open(let attempt)? = machine.connect(id, waiter: "a").run else { Issue.record("no open"); return }
        #expect(machine.cancelConnect(id) == "a")
        #expect(machine.cancelConnect(id) == nil)
        #expect(machine.openFinished(attempt, recovered: nil, failure: nil).waiters.isEmpty)
    }

    // MARK: - The driver lane

    @Test func aCloseWaitsForTheOpenInFlightAndAReconnectForTheClose() throws {
        var machine = Machine(queueLimit: 10)
        guard case .open(let first)? = machine.connect(machine.makeID(), waiter: "a").run else { Issue.record("no open"); return }
        let disconnecting = try machine.disconnect(keepingSession: false, done: "d")
        #expect(disconnecting.run == nil, "the close waits for the open to return")
        #expect(disconnecting.waiters == ["a"])
        #expect(disconnecting.closing)
        let reconnect = machine.connect(machine.makeID(), waiter: "b")
        #expect(reconnect.run == nil, "the new open waits behind the close")
        let afterOpen = machine.openFinished(first, recovered: nil, failure: .cancelled)
        #expect(afterOpen.waiters.isEmpty, "a stale open answers nobody")
        guard case .close(false, "d")? = afterOpen.run else { Issue.record("expected the close, got \(String(describing: afterOpen.run))"); return }
        guard case .open(let second)? = machine.driverJobFinished() else { Issue.record("expected the reopen"); return }
        #expect(second != first)
        #expect(machine.lastError == nil, "an open given up by the app shows no failure")
    }

    @Test func anOpenAbandonedBeforeItsTaskIsKnownIsCancelledWhenItIs() throws {
        var machine = Machine(queueLimit: 10)
        guard case .open(let attempt)? = machine.connect(machine.makeID(), waiter: "a").run else { Issue.record("no open"); return }
        let disconnecting = try machine.disconnect(keepingSession: true, done: "d")
        #expect(disconnecting.cancelOpen == nil, "no task known yet")
        let task = Task<Void, Never> {}
        let cancel = machine.openStarted(attempt, task: task)
        #expect(cancel, "cancel it at once")
    }

    @Test func anOpenStartedBeforeTheDisconnectIsHandedBackToCancel() throws {
        var machine = Machine(queueLimit: 10)
        guard case .open(let attempt)? = machine.connect(machine.makeID(), waiter: "a").run else { Issue.record("no open"); return }
        let task = Task<Void, Never> {}
        let cancel = machine.openStarted(attempt, task: task)
        #expect(!cancel)
        let disconnecting = try machine.disconnect(keepingSession: false, done: "d")
        #expect(disconnecting.cancelOpen == task)
    }

    @Test func disconnectingWhenNothingIsOpenClosesNothing() throws {
        var machine = Machine(queueLimit: 10)
        let disconnecting = try machine.disconnect(keepingSession: false, done: "d")
        #expect(!disconnecting.closing && disconnecting.run == nil)
        #expect(machine.connectionState == .disconnected)
    }

    // MARK: - Commands

    @Test func aSendWhileConnectedSkipsTheQueueAndOneWhileDisconnectedWaits() throws {
        var machine = connected()
        #expect(try machine.sendDirectly())
        _ = try machine.disconnect(keepingSession: false, done: "d")
        #expect(try machine.sendDirectly() == false)
        #expect(try machine.enqueueSend(machine.makeID(), "a", 1, waiter: "s") == false, "no flush while disconnected")
        #expect(machine.commands.queue.count == 1)
    }

    @Test func theQueueRefusesPastItsLimit() throws {
        var machine = Machine(queueLimit: 1)
        _ = try machine.enqueueSend(machine.makeID(), "a", 1, waiter: "s1")
        #expect(throws: ConnectionError.queueFull(limit: 1)) {
            try machine.enqueueSend(machine.makeID(), "b", 2, waiter: "s2")
        }
    }

    @Test func aCancelledQueuedSendLeavesTheQueue() throws {
        var machine = Machine(queueLimit: 10)
        let id = machine.makeID()
        _ = try machine.enqueueSend(id, "a", 1, waiter: "s")
        #expect(machine.cancelSend(id) == "s")
        #expect(machine.commands.queue.isEmpty)
        #expect(machine.cancelSend(id) == nil)
    }

    @Test func theFlushRunsTheQueueInOrderAndEndsWhenEmpty() throws {
        var machine = Machine(queueLimit: 10)
        let send = machine.makeID()
        _ = try machine.enqueueSend(send, "first", 1, waiter: "s")
        let request = machine.makeID()
        guard case .queued(false) = try machine.request(request, pending("second")) else { Issue.record("expected queued"); return }
        guard case .open(let attempt)? = machine.connect(machine.makeID(), waiter: "c").run else { Issue.record("no open"); return }
        #expect(machine.openFinished(attempt, recovered: nil, failure: nil).flush, "connected with commands queued: flush")
        let second = machine.claimFlush()
        #expect(!second, "one flush at a time")
        #expect(try machine.sendDirectly() == false, "newer commands wait behind the flush")
        guard case .send(send, "first", _, "s") = machine.nextFlushStep() else { Issue.record("expected the send first"); return }
        guard case .request(let carried) = machine.nextFlushStep() else { Issue.record("expected the request"); return }
        #expect(carried.id == request && carried.event == "second")
        guard case .done = machine.nextFlushStep() else { Issue.record("expected the end"); return }
        #expect(try machine.sendDirectly(), "the flush ended: commands go straight out again")
    }

    @Test func aSendTheTransportRefusesGoesBackToTheFront() throws {
        var machine = Machine(queueLimit: 10)
        let first = machine.makeID()
        _ = try machine.enqueueSend(first, "first", 1, waiter: "s1")
        _ = try machine.enqueueSend(machine.makeID(), "second", 2, waiter: "s2")
        guard case .open(let attempt)? = machine.connect(machine.makeID(), waiter: "c").run else { Issue.record("no open"); return }
        _ = machine.openFinished(attempt, recovered: nil, failure: nil)
        guard case .send(first, _, _, _) = machine.nextFlushStep() else { Issue.record("expected the first send"); return }
        guard case .requeued(flush: false) = machine.sendRefused(first, "first", 1, waiter: "s1") else {
            Issue.record("kept, and no new flush before the drop is reported"); return
        }
        #expect(machine.commands.queue.count == 2)
        guard case .send(first, _, _, "s1") = machine.nextFlushStep() else { Issue.record("the refused send runs first"); return }
    }

    /// The flush took a send out, and the connection was disconnected and released before the
    /// driver refused it: the release failed what was queued, so this one's caller is told too
    /// (put back, it waited for good on a released connection).
    @Test func aSendRefusedAfterTheReleaseIsHandedBackToBeFailed() throws {
        var machine = Machine(queueLimit: 10)
        let send = machine.makeID()
        _ = try machine.enqueueSend(send, "first", 1, waiter: "s1")
        guard case .open(let attempt)? = machine.connect(machine.makeID(), waiter: "c").run else { Issue.record("no open"); return }
        _ = machine.openFinished(attempt, recovered: nil, failure: nil)
        guard case .send(send, _, _, "s1") = machine.nextFlushStep() else { Issue.record("expected the send"); return }
        _ = try machine.disconnect(keepingSession: false, done: "d")
        _ = machine.driverJobFinished()
        let releasing = try machine.release(done: "r")
        #expect(releasing.queued.isEmpty, "the flush holds the send")
        guard case .released("s1") = machine.sendRefused(send, "first", 1, waiter: "s1") else { Issue.record("expected the waiter back"); return }
        #expect(machine.commands.queue.count == 0)
    }

    /// The flush's send was in the driver when the transport dropped, and the connection was
    /// back before the driver refused it: the reconnect's `connected` found that flush running
    /// and started none, so the refusal starts it. (Before, the send was put back and no flush
    /// ran until the next connection: the queue stalled.)
    @Test func aSendRefusedAfterAReconnectStartsTheFlushTheReconnectCouldNot() throws {
        var machine = Machine(queueLimit: 10)
        let send = machine.makeID()
        _ = try machine.enqueueSend(send, "first", 1, waiter: "s1")
        guard case .open(let first)? = machine.connect(machine.makeID(), waiter: "c").run else { Issue.record("no open"); return }
        #expect(machine.openFinished(first, recovered: nil, failure: nil).flush)
        guard case .send(send, _, _, "s1") = machine.nextFlushStep() else { Issue.record("expected the send"); return }
        _ = machine.transportClosed(first, reason: "reset")
        guard case .open(let second)? = machine.connect(machine.makeID(), waiter: "c2").run else { Issue.record("no reopen"); return }
        _ = machine.driverJobFinished()
        #expect(!machine.openFinished(second, recovered: nil, failure: nil).flush, "the first flush still holds the send")

        guard case .requeued(flush: true) = machine.sendRefused(send, "first", 1, waiter: "s1") else {
            Issue.record("expected a new flush"); return
        }
        #expect(machine.commands.flushing, "claimed for the caller to start")
        guard case .send(send, _, _, "s1") = machine.nextFlushStep() else { Issue.record("the new flush sends it"); return }
    }

    /// The same race with a queued request: refused after the reconnect, the request goes back
    /// and a new flush starts; one refused over the attempt still connected waits for the drop.
    @Test func aRequestRefusedAfterAReconnectStartsANewFlush() throws {
        var machine = Machine(queueLimit: 10)
        let id = machine.makeID()
        _ = try machine.request(id, pending("ack"))
        guard case .open(let first)? = machine.connect(machine.makeID(), waiter: "c").run else { Issue.record("no open"); return }
        _ = machine.openFinished(first, recovered: nil, failure: nil)
        guard case .request(let handed) = machine.nextFlushStep() else { Issue.record("expected the request"); return }
        _ = machine.transportClosed(first, reason: "reset")
        guard case .open(let second)? = machine.connect(machine.makeID(), waiter: "c2").run else { Issue.record("no reopen"); return }
        _ = machine.driverJobFinished()
        #expect(!machine.openFinished(second, recovered: nil, failure: nil).flush)

        #expect(machine.requestRefused(handed) == .requeued(endsFlush: true, flush: true))
        guard case .request(let again) = machine.nextFlushStep() else { Issue.record("the new flush hands it over"); return }
        #expect(again.id == id)
        #expect(machine.requestRefused(again) == .requeued(endsFlush: true, flush: false), "same attempt: wait for the drop")
        #expect(machine.commands.queue.count == 1 && !machine.commands.flushing)
    }

    // MARK: - Requests

    @Test func aRequestWhileConnectedGoesToTheDriverWithTheTimeLeft() throws {
        var machine = connected()
        let id = machine.makeID()
        let request = pending("ack", timeout: .seconds(5))
        clock.advance(by: .seconds(2))
        guard case .direct(let carried) = try machine.request(id, request) else { Issue.record("expected direct"); return }
        #expect(carried.remaining == .seconds(3), "the deadline counts from the call")
        #expect(machine.commands.requests[id]?.inFlight == false, "in flight once the driver took it")
        guard case .carried = machine.requestStarted(carried, end: {}) else { Issue.record("expected carried"); return }
        #expect(machine.commands.requests[id]?.inFlight == true)
    }

    @Test func aQueuedRequestWhoseDeadlinePassedExpiresInTheFlush() throws {
        var machine = Machine(queueLimit: 10)
        let id = machine.makeID()
        _ = try machine.request(id, pending("ack", timeout: .seconds(1)))
        guard case .open(let attempt)? = machine.connect(machine.makeID(), waiter: "c").run else { Issue.record("no open"); return }
        _ = machine.openFinished(attempt, recovered: nil, failure: nil)
        clock.advance(by: .seconds(1))
        guard case .expired(id, .timedOut(event: "ack", after: .seconds(1))) = machine.nextFlushStep() else {
            Issue.record("expected the expiry"); return
        }
        #expect(machine.commands.requests[id] == nil)
    }

    @Test func anAnsweredRequestLeavesOnceAndItsDriverPartIsHandedBack() throws {
        var machine = connected()
        let id = machine.makeID()
        guard case .direct(let handed) = try machine.request(id, pending("ack")) else { Issue.record("expected direct"); return }
        let ended = Gate()
        guard case .carried = machine.requestStarted(handed, end: { ended.open() }) else { Issue.record("expected carried"); return }
        let finished = machine.finishRequest(id)
        #expect(!ended.isOpen, "the machine ends nothing itself")
        finished?.endDriverRequest?()
        #expect(ended.isOpen, "the driver's part is handed back to be ended")
        #expect(machine.finishRequest(id) == nil, "answered once")
        guard case .gone = machine.requestStarted(handed, end: {}) else { Issue.record("a driver part started after the end is ended"); return }
    }

    @Test func anExpiredQueuedRequestLeavesTheQueue() throws {
        var machine = Machine(queueLimit: 10)
        let id = machine.makeID()
        _ = try machine.request(id, pending("ack"))
        #expect(machine.commands.queue.count == 1)
        #expect(machine.finishRequest(id) != nil)
        #expect(machine.commands.queue.isEmpty)
    }

    @Test func aTransportDropFailsOnlyTheRequestsTheDriverCarries() throws {
        var machine = connected()
        let carried = machine.makeID()
        guard case .direct(let handed) = try machine.request(carried, pending("a")) else { Issue.record("expected direct"); return }
        _ = machine.requestStarted(handed, end: {})
        _ = try machine.enqueueSend(machine.makeID(), "x", 1, waiter: "queued")  // a queued send stays queued
        let lost = machine.transportClosed(.init(number: 1), reason: "reset")
        #expect(lost.map { Set($0.keys) } == [carried])
        #expect(machine.lastError == "reset")
        #expect(machine.transportClosed(.init(number: 1), reason: "again") == nil, "a stale attempt's close is ignored")
    }

    /// The flush handed a queued request to the driver, which found the transport already down
    /// (nothing written): the request goes back ahead of the commands made after it, keeps its
    /// deadline, and is not failed by the transport's drop; the next connection's flush sends it
    /// first. (It failed with `driverFailed` before, though it was never sent.)
    @Test func aQueuedRequestTheDriverRefusesWaitsForTheNextConnection() throws {
        var machine = Machine(queueLimit: 10)
        let request = machine.makeID()
        _ = try machine.request(request, pending("ack", timeout: .seconds(5)))
        let send = machine.makeID()
        _ = try machine.enqueueSend(send, "after", 1, waiter: "s")
        guard case .open(let first)? = machine.connect(machine.makeID(), waiter: "c").run else { Issue.record("no open"); return }
        #expect(machine.openFinished(first, recovered: nil, failure: nil).flush)
        guard case .request(let handed) = machine.nextFlushStep() else { Issue.record("expected the request"); return }

        #expect(machine.requestRefused(handed) == .requeued(endsFlush: true, flush: false))
        #expect(machine.commands.queue.count == 2)
        #expect(machine.commands.requests[request]?.inFlight == false)
        #expect(machine.transportClosed(first, reason: "reset")?.isEmpty == true, "not failed: it was never sent")
        #expect(machine.requestRefused(handed) == .ended, "a refusal is heard once")

        clock.advance(by: .seconds(2))
        guard case .open(let second)? = machine.connect(machine.makeID(), waiter: "c2").run else { Issue.record("no reopen"); return }
        _ = machine.driverJobFinished()
        #expect(machine.openFinished(second, recovered: nil, failure: nil).flush)
        guard case .request(let again) = machine.nextFlushStep() else { Issue.record("the refused request runs first"); return }
        #expect(again.id == request && again.claim != handed.claim)
        #expect(again.remaining == .seconds(3), "its deadline ran on while it waited")
        guard case .gone = machine.requestStarted(handed, end: {}) else { Issue.record("the refused handing is over"); return }
        guard case .carried = machine.requestStarted(again, end: {}) else { Issue.record("expected carried"); return }
        _ = machine.finishRequest(request)
        guard case .send(send, "after", _, "s") = machine.nextFlushStep() else { Issue.record("then the send"); return }
    }

    /// A request made while connected goes straight to the driver; refused (the drop is not
    /// reported yet), it is queued instead of failed, ahead of what was queued after it. One the
    /// driver took after its transport was gone is lost, as a request in flight is.
    @Test func aDirectRequestTheDriverRefusesIsQueuedAndOneTakenTooLateIsLost() throws {
        var machine = connected()
        let refusedID = machine.makeID()
        guard case .direct(let refused) = try machine.request(refusedID, pending("a")) else { Issue.record("expected direct"); return }
        let takenID = machine.makeID()
        guard case .direct(let taken) = try machine.request(takenID, pending("b")) else { Issue.record("expected direct"); return }
        #expect(machine.transportClosed(.init(number: 1), reason: "reset")?.isEmpty == true, "neither was taken yet")
        _ = try machine.enqueueSend(machine.makeID(), "later", 1, waiter: "s")
        #expect(machine.requestRefused(refused) == .requeued(endsFlush: false, flush: false))
        guard case .lost(let lost) = machine.requestStarted(taken, end: {}) else { Issue.record("expected lost"); return }
        #expect(lost.event == "b" && machine.commands.requests[takenID] == nil)
        var queue = machine.commands.queue
        guard case .request = queue.popFirst()?.command else { Issue.record("the refused request first"); return }
    }

    // MARK: - Events and release

    @Test func aRequestNobodyListensForIsDeclinedAndAStaleOneIsNot() {
        var machine = connected()
        let request = IncomingRequest(event: "ask", payload: .null, reply: DriverReply(send: { _ in true })) { true }
        let heard = machine.deliver(request, from: .init(number: 1))
        #expect(!heard)
        let heardStale = machine.deliver(request, from: .init(number: 7))
        #expect(heardStale, "a stale attempt's request is dropped, not declined")
    }

    @Test func releaseHandsBackEveryCallerAndClosesTheDriver() throws {
        var machine = Machine(queueLimit: 10)
        _ = try machine.enqueueSend(machine.makeID(), "a", 1, waiter: "s")
        let request = machine.makeID()
        _ = try machine.request(request, pending("ack"))
        _ = try machine.disconnect(keepingSession: false, done: "d")
        let releasing = try machine.release(done: "r")
        #expect(releasing.queued.count == 2)
        #expect(Set(releasing.requests.keys) == [request])
        guard case .close(false, "r")? = releasing.run else { Issue.record("expected the close"); return }
        #expect(machine.commands.queue.isEmpty && machine.commands.requests.isEmpty)
        #expect(throws: ConnectionError.released) { try machine.release(done: "again") }
        #expect(throws: ConnectionError.released) { try machine.sendDirectly() }
    }
}
