import SocketIOProtocol
import Testing
@testable import Switchboard

/// The failover channel's rules, event by event, without links, clocks or tasks: links are
/// names, waiters and listeners numbers, time is passed in.
@Suite("Failover channel state machine")
struct FailoverChannelStateMachineTests {
    typealias Machine = FailoverChannelStateMachine<String, Int, Int>

    /// A policy that answers from a script and remembers what it was told.
    struct ScriptedPolicy: FailoverPolicy {
        var initial = FailoverTransport.webSocket
        var decisions: [FailoverDecision] = []
        var tickDecision = FailoverDecision.stay
        var allowed: Set<FailoverTransport> = [.webSocket, .socketIO]
        var observed: [FailoverSignal] = []

        mutating func observe(_ signal: FailoverSignal, current: FailoverTransport, now: Duration) -> FailoverDecision {
            observed.append(signal)
            return decisions.isEmpty ? .stay : decisions.removeFirst()
        }

        func tick(current: FailoverTransport, now: Duration) -> FailoverDecision { tickDecision }

        func allows(_ transport: FailoverTransport) -> Bool { allowed.contains(transport) }
    }

    static func observed(_ machine: Machine) -> [FailoverSignal] {
        (machine.policy as? ScriptedPolicy)?.observed ?? []
    }

    static func closed(_ policy: ScriptedPolicy = ScriptedPolicy(), window: Int = 3) -> Machine {
        Machine(channelID: "c1", window: window, ackEvery: 2, ackTimeout: .seconds(10), policy: policy)
    }

    /// A channel open on link "L1" (generation 1), `transport`, the listener 7.
    static func connected(_ policy: ScriptedPolicy = ScriptedPolicy(), transport: FailoverTransport = .webSocket) -> Machine {
        var machine = closed(policy)
        _ = machine.open(listener: 7)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 1, link: "L1", transport: transport, waiter: 1, newChannel: nil)
        _ = machine.linkReported(.envelope(.success(.resumed(channel: "c1", received: 0))), generation: 1, now: .zero)
        return machine
    }

    static func report(_ envelope: Envelope) -> FailoverLinkEvent { .envelope(.success(envelope)) }

    // MARK: - Opening

    @Test func openingStartsOnThePolicysTransportAndAttemptsAreNumbered() throws {
        var machine = Self.closed(ScriptedPolicy(initial: .socketIO))
        #expect(machine.attemptStarting(newChannel: nil) == nil, "closed: no attempt")
        #expect(machine.open(listener: 7) == .socketIO)
        #expect(machine.attemptStarting(newChannel: nil)?.attempt == .init(generation: 1, channelID: "c1"))
        #expect(machine.attemptStarting(newChannel: nil)?.attempt == .init(generation: 2, channelID: "c1"))
        guard case .refuse(3) = machine.resumeStarting(generation: 1, link: "L1", transport: .socketIO, waiter: 3, newChannel: nil) else {
            Issue.record("a stale attempt's resume is refused")
            return
        }
        guard case .send(let resume) = machine.resumeStarting(generation: 2, link: "L2", transport: .socketIO, waiter: 4, newChannel: nil) else {
            Issue.record("expected the resume to go out")
            return
        }
        #expect(resume == .resume(channel: "c1", received: 0))
        #expect(FailoverChannel.Snapshot(machine).resuming)
        #expect(FailoverChannel.Snapshot(machine).transport == nil, "no link carries the channel yet")
    }

    @Test func resumedMakesTheLinkTheChannelsAndTellsTheObservers() throws {
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 1, link: "L1", transport: .webSocket, waiter: 5, newChannel: nil)
        let wrongChannel = machine.linkReported(Self.report(.resumed(channel: "other", received: 0)), generation: 1, now: .zero)
        #expect(wrongChannel.resume == nil)
        let action = machine.linkReported(Self.report(.resumed(channel: "c1", received: 0)), generation: 1, now: .zero)
        #expect(action.resume?.waiter == 5)
        #expect((try? action.resume?.result.get()) != nil)
        #expect(action.publish?.events == [.transportChanged(from: nil, to: .webSocket, reason: "opened")])
        #expect(action.note == .resumed(.webSocket, resent: 0))
        #expect(machine.connected?.link == "L1")
        #expect(machine.ledger.recovered == false, "a first open is a new channel")
        #expect(Self.observed(machine) == [.connected(.webSocket)])
        #expect(machine.open(listener: 8) == .webSocket, "a later open starts where the channel was")
    }

    @Test func aResumeAfterALossRecoversAndSendsAgainWhatTheServerMissed() throws {
        var machine = Self.connected()
        _ = try machine.send(.event(name: "a", data: 1), now: .seconds(1))
        _ = machine.written(generation: 1)
        _ = try machine.send(.event(name: "b", data: 2), now: .seconds(1))
        let lost = machine.linkReported(.ended("cut"), generation: 1, now: .seconds(2))
        #expect(lost.relink?.target == .webSocket)
        #expect(lost.relink?.closing == "L1")
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 3, link: "L2", transport: .socketIO, waiter: 2, newChannel: nil)
        let action = machine.linkReported(Self.report(.resumed(channel: "c1", received: 1)), generation: 3, now: .seconds(3))
        #expect(action.write?.link == "L2")
        #expect(action.write?.envelopes == [.event(name: "b", data: 2, seq: 2)], "only what the server missed")
        #expect(action.publish?.events == [.transportChanged(from: .webSocket, to: .socketIO, reason: "switched")])
        #expect(machine.ledger.recovered == true)
    }

    @Test func aResumeBeyondWhatWasSentFailsTheAttempt() throws {
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 1, link: "L1", transport: .webSocket, waiter: 5, newChannel: nil)
        let action = machine.linkReported(Self.report(.resumed(channel: "c1", received: 4)), generation: 1, now: .zero)
        #expect(action.resume?.waiter == 5)
        #expect(throws: ReliableChannelError.resumeBeyondSent(seq: 4, lastSent: 0)) { try action.resume?.result.get() }
        #expect(machine.connected == nil)
    }

    /// A resume that fails leaves the channel where it was: the switch is reported when a resume
    /// succeeds (before, the failed one had recorded the new transport, and the success then
    /// reported no change at all).
    @Test func aFailedResumeDoesNotMoveTheChannel() throws {
        var machine = Self.connected()
        _ = machine.linkReported(.ended("cut"), generation: 1, now: .zero)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 3, link: "L2", transport: .socketIO, waiter: 2, newChannel: nil)
        let failed = machine.linkReported(Self.report(.resumed(channel: "c1", received: 9)), generation: 3, now: .zero)
        #expect(throws: ReliableChannelError.self) { try failed.resume?.result.get() }
        #expect(machine.transport == .webSocket, "still where it was")
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 4, link: "L3", transport: .socketIO, waiter: 3, newChannel: nil)
        let resumed = machine.linkReported(Self.report(.resumed(channel: "c1", received: 0)), generation: 4, now: .zero)
        #expect(resumed.publish?.events == [.transportChanged(from: .webSocket, to: .socketIO, reason: "switched")])
    }

    @Test func theServerLosingTheChannelStartsANewOneWithWhatWasNotAcknowledged() throws {
        var machine = Self.connected()
        _ = try machine.send(.event(name: "a", data: 1), now: .zero)
        _ = machine.linkReported(.ended("cut"), generation: 1, now: .zero)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 3, link: "L2", transport: .webSocket, waiter: 2, newChannel: nil)
        let refused = machine.linkReported(Self.report(.error(id: nil, message: "unknown or expired channel c1")), generation: 3, now: .zero)
        #expect(refused.resume?.waiter == 2)
        #expect(throws: FailoverChannel.ChannelGone.self) { try refused.resume?.result.get() }
        guard case .send(let resume) = machine.resumeStarting(
            generation: 3, link: "L2", transport: .webSocket, waiter: 3, newChannel: .init(id: "c2", reason: "gone")
        ) else {
            Issue.record("expected the resume of the new channel")
            return
        }
        #expect(resume == .resume(channel: "c2", received: 0))
        let action = machine.linkReported(Self.report(.resumed(channel: "c2", received: 0)), generation: 3, now: .zero)
        #expect(action.write?.envelopes == [.event(name: "a", data: 1, seq: 1)], "numbered again on the new channel")
        #expect(machine.ledger.recovered == false, "a new channel: the app resynchronises")
    }

    /// A client that only sends has received nothing, so its resume says `received: 0`, which a
    /// server that lost the channel takes for an open under the same id. The server saying it
    /// holds nothing after acknowledging some means just that: the channel starts over there.
    /// Before, the resume failed on every attempt (`resumeBeforeWindow`), or, with everything
    /// acknowledged, the next send hit a gap.
    @Test(arguments: [false, true])
    func aServerThatForgotTheChannelUnderItsIdStartsItOver(allAcknowledged: Bool) throws {
        var machine = Self.connected()
        _ = try machine.send(.event(name: "a", data: 1), now: .zero)
        _ = try machine.send(.event(name: "b", data: 2), now: .zero)
        _ = try machine.send(.event(name: "c", data: 3), now: .zero)
        _ = machine.linkReported(Self.report(.ack(seq: allAcknowledged ? 3 : 2)), generation: 1, now: .zero)
        _ = machine.linkReported(.ended("the server restarted"), generation: 1, now: .zero)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 3, link: "L2", transport: .webSocket, waiter: 2, newChannel: nil)
        let action = machine.linkReported(Self.report(.resumed(channel: "c1", received: 0)), generation: 3, now: .zero)
        #expect((try? action.resume?.result.get()) != nil, "resumed")
        #expect(action.write?.envelopes ?? [] == (allAcknowledged ? [] : [.event(name: "c", data: 3, seq: 1)]), "numbered again from 1")
        #expect(machine.ledger.recovered == false, "a new channel: the app resynchronises")
        _ = machine.written(generation: 3)
        let next = try machine.send(.event(name: "d", data: 4), now: .zero)
        #expect(next.write?.envelopes == [.event(name: "d", data: 4, seq: allAcknowledged ? 1 : 2)])
    }

    // MARK: - Sending

    @Test func sendsAreKeptWhileNoLinkAndTheWindowBoundsThem() throws {
        var machine = Self.closed(window: 2)
        #expect(try machine.send(.event(name: "a", data: 1), now: .zero).write == nil)
        #expect(try machine.send(.request(name: "q", data: 2), now: .zero).requestID == 0)
        #expect(throws: ReliableChannelError.windowFull(window: 2)) { try machine.send(.event(name: "c", data: 3), now: .zero) }
        #expect(machine.ledger.sender.unacknowledged.count == 2)
        #expect(try machine.send(.decline(id: 4, message: "no"), now: .zero).write == nil, "a decline needs a link")
    }

    /// A decline made while no link carries the channel goes out after the next `resumed`,
    /// behind what the server missed: the server counted its request as delivered and never
    /// sends it again, so lost, the request waited out its timeout on the server.
    @Test func aDeclineWithoutALinkGoesOutAfterTheNextResume() throws {
        var machine = Self.connected()
        _ = try machine.send(.event(name: "a", data: 1), now: .seconds(1))
        _ = machine.linkReported(.ended("cut"), generation: 1, now: .seconds(2))
        #expect(try machine.send(.decline(id: 4, message: "no handler"), now: .seconds(2)).write == nil)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 3, link: "L2", transport: .webSocket, waiter: 2, newChannel: nil)
        let action = machine.linkReported(Self.report(.resumed(channel: "c1", received: 0)), generation: 3, now: .seconds(3))
        #expect(action.write?.envelopes == [.event(name: "a", data: 1, seq: 1), .error(id: 4, message: "no handler")])
        #expect(machine.ledger.heldDeclines.isEmpty, "once")
        // A decline held for a channel the server lost is dropped with it.
        _ = machine.linkReported(.ended("cut"), generation: 3, now: .seconds(4))
        _ = try machine.send(.decline(id: 5, message: "no handler"), now: .seconds(4))
        _ = machine.attemptStarting(newChannel: FailoverChannel.NewChannel(id: "c2", reason: "expired"))
        #expect(machine.ledger.heldDeclines.isEmpty)
    }

    @Test func oneWriterAtATimeKeepsTheNumbersInOrder() throws {
        var machine = Self.connected()
        let first = try machine.send(.event(name: "a", data: 1), now: .zero)
        #expect(first.write?.envelopes == [.event(name: "a", data: 1, seq: 1)], "the first sender becomes the writer")
        let second = try machine.send(.request(name: "q", data: 2), now: .zero)
        #expect(second.write == nil, "joins the writer's outbox")
        #expect(second.requestID == 0)
        let next = machine.written(generation: 1)
        #expect(next?.envelopes == [.request(name: "q", data: 2, id: 0, seq: 2)])
        #expect(machine.written(generation: 1) == nil, "the writer stops")
        #expect(try machine.send(.event(name: "c", data: 3), now: .zero).write != nil, "and the next sender writes")
    }

    @Test func aWriterOfALostLinkStops() throws {
        var machine = Self.connected()
        _ = try machine.send(.event(name: "a", data: 1), now: .zero)
        _ = try machine.send(.event(name: "b", data: 2), now: .zero)
        _ = machine.linkReported(.ended("cut"), generation: 1, now: .zero)
        #expect(machine.written(generation: 1) == nil)
        #expect(machine.ledger.sender.unacknowledged.count == 2, "kept for the next link")
    }

    @Test func whatWasDeliveredIsAcknowledgedBeforeTheNextSend() throws {
        var machine = Self.connected()
        _ = machine.linkReported(Self.report(.event(name: "x", data: 1, seq: 1)), generation: 1, now: .zero)
        let action = try machine.send(.event(name: "a", data: 1), now: .zero)
        #expect(action.write?.envelopes == [.ack(seq: 1), .event(name: "a", data: 1, seq: 1)])
    }

    // MARK: - Receiving

    @Test func messagesAreDeliveredOnceInOrderAndAcknowledgedInBatches() throws {
        var machine = Self.connected()
        let first = machine.linkReported(Self.report(.event(name: "x", data: 1, seq: 1)), generation: 1, now: .zero)
        #expect(first.deliver?.envelope == .event(name: "x", data: 1, seq: 1))
        #expect(first.deliver?.listener == 7)
        #expect(first.startAckTimer)
        #expect(first.write == nil)
        let second = machine.linkReported(Self.report(.event(name: "y", data: 2, seq: 2)), generation: 1, now: .zero)
        #expect(!second.startAckTimer, "the timer runs already")
        #expect(second.write?.envelopes == [.ack(seq: 2)], "every ackEvery messages")
        _ = machine.written(generation: 1)
        let repeated = machine.linkReported(Self.report(.event(name: "x", data: 1, seq: 1)), generation: 1, now: .zero)
        #expect(repeated.deliver == nil)
        #expect(repeated.write?.envelopes == [.ack(seq: 2)], "a repeat is acknowledged at once")
        let stale = machine.linkReported(Self.report(.event(name: "z", data: 3, seq: 3)), generation: 0, now: .zero)
        #expect(stale.deliver == nil)
    }

    @Test func aReplyAnswersTheRequestAndAnErrorWithAnIdFailsIt() {
        var machine = Self.connected()
        let reply = machine.linkReported(Self.report(.reply(id: 4, data: ["ok"], seq: 1)), generation: 1, now: .zero)
        #expect(reply.deliver == nil)
        #expect(reply.settle?.id == 4)
        #expect(reply.settle?.result == .success(Response(values: ["ok"])))
        let error = machine.linkReported(Self.report(.error(id: 5, message: "no")), generation: 1, now: .zero)
        #expect(error.settle?.id == 5)
        #expect(error.settle?.result == .failure(.driverFailed("no")))
    }

    @Test func aGapOrAMessageWithoutNumberLosesTheLink() {
        var gap = Self.connected()
        let action = gap.linkReported(Self.report(.event(name: "x", data: 1, seq: 2)), generation: 1, now: .zero)
        #expect(action.deliver == nil)
        #expect(action.relink?.closing == "L1")
        #expect(action.note == .transportLost(.webSocket, reason: "\(ReliableChannelError.gap(expected: 1, got: 2))"))
        var unnumbered = Self.connected()
        #expect(unnumbered.linkReported(Self.report(.event(name: "x", data: 1)), generation: 1, now: .zero).relink != nil)
        var resume = Self.connected()
        #expect(resume.linkReported(Self.report(.resume(channel: "c1", received: 0)), generation: 1, now: .zero).relink != nil)
    }

    @Test func acknowledgementsReleaseMessagesAndMeasureRoundTrips() throws {
        var machine = Self.connected(ScriptedPolicy(decisions: [.stay, .switchTo(.socketIO, reason: "slow")]))
        _ = try machine.send(.event(name: "a", data: 1), now: .seconds(1))
        let action = machine.linkReported(Self.report(.ack(seq: 1)), generation: 1, now: .milliseconds(1_300))
        #expect(machine.ledger.sender.unacknowledged.isEmpty)
        #expect(Self.observed(machine) == [.connected(.webSocket), .roundTrip(.milliseconds(300))])
        #expect(action.publish?.events == [.transportChanged(from: .webSocket, to: .socketIO, reason: "slow")])
        #expect(action.relink?.target == .socketIO)
        #expect(action.relink?.closing == "L1")
        #expect(machine.connected == nil)
    }

    @Test func anAcknowledgementOfWhatWasNeverSentLosesTheLink() {
        var machine = Self.connected()
        let action = machine.linkReported(Self.report(.ack(seq: 9)), generation: 1, now: .zero)
        #expect(action.note == .transportLost(.webSocket, reason: "the server acknowledged what was never sent"))
        #expect(action.relink?.target == .webSocket)
    }

    // MARK: - Losing a link

    @Test func aLostLinkReconnectsWhereThePolicySaysAndItsLaterReportsAreStale() {
        var machine = Self.connected(ScriptedPolicy(decisions: [.stay, .switchTo(.socketIO, reason: "twice")]))
        let action = machine.linkReported(.ended("cut"), generation: 1, now: .zero)
        #expect(Self.observed(machine).last == .dropped(.webSocket))
        #expect(action.relink?.target == .socketIO)
        #expect(action.publish?.events == [.transportChanged(from: .webSocket, to: .socketIO, reason: "twice")])
        #expect(action.note == .transportLost(.webSocket, reason: "cut"))
        #expect(machine.generation == 2)
        #expect(machine.linkReported(.ended("again"), generation: 1, now: .zero).relink == nil)
    }

    @Test func aLinkEndingWhileItResumesFailsThatAttemptOnly() {
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 1, link: "L1", transport: .webSocket, waiter: 9, newChannel: nil)
        #expect(machine.linkReported(.ended("cut"), generation: 0, now: .zero).resume == nil)
        let action = machine.linkReported(.ended("cut"), generation: 1, now: .zero)
        #expect(action.resume?.waiter == 9)
        #expect(throws: ConnectionError.connectFailed("cut")) { try action.resume?.result.get() }
        #expect(action.relink == nil)
        #expect(machine.timerFired(.resumeDeadline(generation: 1, timeout: .seconds(5)), now: .zero).resume == nil, "answered once")
    }

    @Test func theResumeDeadlineFailsOnlyItsAttempt() {
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 1, link: "L1", transport: .webSocket, waiter: 9, newChannel: nil)
        #expect(machine.timerFired(.resumeDeadline(generation: 0, timeout: .seconds(5)), now: .zero).resume == nil)
        let action = machine.timerFired(.resumeDeadline(generation: 1, timeout: .seconds(5)), now: .zero)
        #expect(throws: ConnectionError.connectFailed("no resumed within 5.0 seconds")) { try action.resume?.result.get() }
    }

    // MARK: - Timers and the network

    @Test func aMessageUnacknowledgedPastTheDeadlineMeansTheLinkStalled() throws {
        var machine = Self.connected()
        _ = try machine.send(.event(name: "a", data: 1), now: .seconds(1))
        #expect(machine.timerFired(.tick, now: .seconds(11)).relink == nil, "not yet")
        let action = machine.timerFired(.tick, now: .seconds(12))
        #expect(Self.observed(machine).last == .deadlineMissed(.webSocket))
        #expect(action.relink?.closing == "L1")
        #expect(action.note == .transportLost(.webSocket, reason: "no acknowledgement within 10.0 seconds"))
    }

    @Test func theTickRunsThePolicysTimeBasedRules() {
        var machine = Self.connected(ScriptedPolicy(tickDecision: .switchTo(.webSocket, reason: "good")), transport: .socketIO)
        let action = machine.timerFired(.tick, now: .seconds(60))
        #expect(action.note == .switching(to: .webSocket, reason: "good"))
        #expect(action.publish?.events == [.transportChanged(from: .socketIO, to: .webSocket, reason: "good")])
        #expect(action.relink?.target == .webSocket)
        #expect(machine.timerFired(.tick, now: .seconds(61)).relink == nil, "no link: nothing to switch")
    }

    @Test func theAckTimerAcknowledgesWhatIsDueOnce() {
        var machine = Self.connected()
        _ = machine.linkReported(Self.report(.event(name: "x", data: 1, seq: 1)), generation: 1, now: .zero)
        #expect(machine.ackTimerRunning)
        let action = machine.timerFired(.ackDelay, now: .milliseconds(20))
        #expect(action.write?.envelopes == [.ack(seq: 1)])
        #expect(!machine.ackTimerRunning)
        _ = machine.written(generation: 1)
        #expect(machine.timerFired(.ackDelay, now: .milliseconds(40)).write == nil, "nothing new")
    }

    @Test func aPathChangeGoesToThePolicy() {
        var machine = Self.connected(ScriptedPolicy(decisions: [.stay, .switchTo(.socketIO, reason: "path")]))
        let action = machine.pathChanged(.unsatisfied, now: .zero)
        #expect(Self.observed(machine).count == 2)
        #expect(action.relink?.target == .socketIO)
        #expect(action.publish?.events == [.transportChanged(from: .webSocket, to: .socketIO, reason: "path")])
    }

    // MARK: - Connect attempts

    @Test func aFailedAttemptAsksThePolicyAndTriesTheOtherTransportEverySecondTime() {
        var machine = Self.closed(ScriptedPolicy(allowed: [.webSocket, .socketIO]))
        _ = machine.open(listener: 7)
        let first = machine.connectFailed(.webSocket, generation: 0, attempt: 1, of: 4, error: ConnectionError.connectFailed("x"),
                                          observed: true, reportsLoss: false, now: .zero)
        #expect(first.next == .webSocket && !first.stop)
        let second = machine.connectFailed(.webSocket, generation: 0, attempt: 2, of: 4, error: ConnectionError.connectFailed("x"),
                                           observed: true, reportsLoss: false, now: .zero)
        #expect(second.next == .socketIO)
        #expect(Self.observed(machine) == [.connectFailed(.webSocket), .connectFailed(.webSocket)])
        var pinned = Self.closed(ScriptedPolicy(allowed: [.webSocket]))
        _ = pinned.open(listener: 7)
        #expect(pinned.connectFailed(.webSocket, generation: 0, attempt: 2, of: 4, error: ConnectionError.connectFailed("x"),
                                     observed: true, reportsLoss: false, now: .zero).next == .webSocket)
    }

    @Test func aPolicySwitchAfterAFailedAttemptIsPublished() {
        var machine = Self.closed(ScriptedPolicy(decisions: [.switchTo(.socketIO, reason: "down")]))
        _ = machine.open(listener: 7)
        let action = machine.connectFailed(.webSocket, generation: 0, attempt: 1, of: 4, error: ConnectionError.connectFailed("x"),
                                           observed: true, reportsLoss: true, now: .zero)
        #expect(action.next == .socketIO)
        #expect(action.publish?.events == [.transportChanged(from: .webSocket, to: .socketIO, reason: "down")])
    }

    @Test func aReconnectionGivesUpAfterItsLastAttemptAndTellsTheConnectionOnce() throws {
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        let action = machine.connectFailed(.webSocket, generation: 0, attempt: 3, of: 3, error: ConnectionError.connectFailed("x"),
                                           observed: false, reportsLoss: true, now: .zero)
        #expect(action.stop)
        #expect(Self.observed(machine).isEmpty, "not observed: the retry after a lost channel")
        #expect(action.reportLoss?.listener == 7)
        #expect(action.publish?.events == [.gaveUp(reason: "\(ConnectionError.connectFailed("x"))")])
        let again = machine.connectFailed(.webSocket, generation: 0, attempt: 3, of: 3, error: ConnectionError.connectFailed("x"),
                                          observed: false, reportsLoss: true, now: .zero)
        #expect(again.reportLoss.map { $0.listener == nil } == true, "the connection was told already")
    }

    @Test func anOpeningThatFailsOrACancelledAttemptJustStops() {
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        let last = machine.connectFailed(.webSocket, generation: 0, attempt: 4, of: 4, error: ConnectionError.connectFailed("x"),
                                         observed: true, reportsLoss: false, now: .zero)
        #expect(last.stop && last.reportLoss == nil && last.publish == nil)
        let cancelled = machine.connectFailed(.webSocket, generation: 0, attempt: 1, of: 4, error: CancellationError(),
                                              observed: true, reportsLoss: true, now: .zero)
        #expect(cancelled.stop && cancelled.reportLoss == nil)
        #expect(Self.observed(machine) == [.connectFailed(.webSocket)], "a cancelled attempt is not a failure")
    }

    @Test func aFailureOfAnAttemptFromBeforeACloseAndOpenIsStale() {
        // A reconnection's last attempt fails after the app closed the channel and opened it
        // again (close resumes its resume waiter with an error, not a cancellation): the new
        // open's listener keeps hearing the channel, and the policy hears nothing.
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        let old = machine.attemptStarting(newChannel: nil)
        _ = machine.close()
        _ = machine.open(listener: 8)
        let stale = machine.connectFailed(.webSocket, generation: old?.attempt.generation ?? -1, attempt: 3, of: 3,
                                          error: ConnectionError.connectFailed("closed"), observed: true, reportsLoss: true, now: .zero)
        #expect(stale.stop)
        #expect(stale.reportLoss == nil && stale.publish == nil)
        #expect(Self.observed(machine).isEmpty)
        // The new open's own attempt still gives up and reports to listener 8.
        let current = machine.attemptStarting(newChannel: nil)
        let last = machine.connectFailed(.webSocket, generation: current?.attempt.generation ?? -1, attempt: 3, of: 3,
                                         error: ConnectionError.connectFailed("x"), observed: true, reportsLoss: true, now: .zero)
        #expect(last.reportLoss?.listener == 8)
    }

    /// A reconnection replaced while its resume waits (its task cancelled, a new one started):
    /// the new attempt hands the waiting resume back to be answered. Before, it was overwritten,
    /// and its task (holding its link open) waited for good: its deadline, of an older
    /// generation, found nothing to fail.
    @Test func aNewAttemptDisplacesAWaitingResume() {
        var machine = Self.closed()
        _ = machine.open(listener: 7)
        _ = machine.attemptStarting(newChannel: nil)
        _ = machine.resumeStarting(generation: 1, link: "L1", transport: .webSocket, waiter: 4, newChannel: nil)
        let next = machine.attemptStarting(newChannel: nil)
        #expect(next?.attempt.generation == 2)
        #expect(next?.displaced == 4)
        #expect(machine.attemptStarting(newChannel: nil)?.displaced == nil, "once")
    }

    // MARK: - Closing

    @Test func closingHandsOutTheLinkTheWaiterAndTheTasksAndLaterReportsAreStale() throws {
        var machine = Self.connected()
        let ticker = Task<Void, Never> {}
        #expect(machine.adopt(ticker, as: .ticker) == nil)
        let newer = Task<Void, Never> {}
        #expect(machine.adopt(newer, as: .ticker) == ticker, "the replaced task is handed back to be cancelled")
        let action = machine.close()
        #expect(action.link == "L1")
        #expect(action.waiter == nil)
        #expect(action.tasks == [newer])
        #expect(FailoverChannel.Snapshot(machine).closed)
        #expect(machine.linkReported(.ended("cut"), generation: 1, now: .zero).relink == nil)
        #expect(machine.attemptStarting(newChannel: nil) == nil)

        var resuming = Self.closed()
        _ = resuming.open(listener: 7)
        _ = resuming.attemptStarting(newChannel: nil)
        _ = resuming.resumeStarting(generation: 1, link: "L1", transport: .webSocket, waiter: 4, newChannel: nil)
        let closed = resuming.close()
        #expect(closed.waiter == 4)
        #expect(closed.link == nil, "the attempt closes its own link")
        #expect(resuming.linkReported(Self.report(.resumed(channel: "c1", received: 0)), generation: 1, now: .zero).resume == nil)
    }
}
