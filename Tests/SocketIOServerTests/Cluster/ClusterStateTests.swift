import SocketIOProtocol
@testable import SocketIOServer
import Testing

/// The cluster adapter's rules for its lifecycle, the other servers and requests, event by
/// event, with time as an argument: no transport, no tasks, no clocks.
@Suite("ClusterState")
struct ClusterStateTests {
    /// Waiters and callers are numbers here.
    typealias Machine = ClusterState<Int, Int>

    static let options = ClusterOptions(heartbeatInterval: .seconds(5), heartbeatTimeout: .seconds(10), requestTimeout: .seconds(5), publishTimeout: .seconds(15))

    static func machine() -> Machine { Machine(uid: "self", namespace: "/", options: options) }

    static func message(from uid: String, _ payload: ClusterPayload = .none(.heartbeat), sequence: UInt64? = nil, namespace: String = "/") -> ClusterMessage {
        ClusterMessage(uid: uid, namespace: namespace, payload: payload, sequence: sequence)
    }

    /// `machine` hears from `uids` at `now`.
    static func hear(_ uids: String..., at now: Duration = .zero, in machine: inout Machine) {
        for uid in uids { _ = machine.arrived(message(from: uid), at: now) }
    }

    /// The message types queued, oldest first (takes them).
    static func drain(_ machine: inout Machine) -> [ClusterMessageType] {
        guard case .batch(let items) = machine.takeOutgoing(max: 100) else { return [] }
        return items.map(\.message.type)
    }

    // MARK: - Lifecycle

    @Test("idle → starting → running: one start subscribes; the subscription queues the announcement; a second start does nothing")
    func startOnce() {
        var machine = Self.machine()
        let receiver = ClusterHeartbeatTests.NoSockets()
        #expect(machine.receiver == nil)
        #expect(machine.start(receiver) == true)
        #expect(machine.start(receiver) == false)
        #expect(machine.receiver === receiver)
        guard case .startLoops = machine.subscribed(at: .seconds(2)) else { Issue.record("expected startLoops"); return }
        #expect(machine.start(receiver) == false)
        guard case .batch(let items) = machine.takeOutgoing(max: 10) else { Issue.record("expected the announcement"); return }
        #expect(items.map(\.message.type) == [.initialHeartbeat])
        #expect(items.map(\.message.sequence) == [1])
        #expect(items.map(\.madeAt) == [.seconds(2)])
    }

    @Test("a failed subscription goes back to idle: the next start subscribes again")
    func failedStart() {
        var machine = Self.machine()
        let receiver = ClusterHeartbeatTests.NoSockets()
        #expect(machine.start(receiver) == true)
        #expect(machine.subscribeFailed(reason: "down").cancel.isEmpty)
        #expect(machine.receiver == nil)
        #expect(machine.start(receiver) == true)
    }

    @Test("a failed start fails what queued and refuses what comes (no loop would publish it) until a start is tried again")
    func failedStartRefusesPublishes() {
        var machine = Self.machine()
        let receiver = ClusterHeartbeatTests.NoSockets()
        _ = machine.enqueue(Self.message(from: "self"), at: .zero, caller: 7)  // before the start: queued for it
        #expect(machine.start(receiver) == true)
        _ = machine.enqueue(Self.message(from: "self"), at: .zero)
        let why = ClusterError.publishFailed("the cluster adapter did not start: namespace too long")
        let effects = machine.subscribeFailed(reason: "namespace too long")
        #expect(effects.callers.map(\.caller) == [7])
        #expect(effects.callers.map { ClusterStatePublishingTests.failure($0.result) } == [why])
        #expect(effects.unpublished.count == 1 && machine.failures == 1)
        guard case .empty = machine.takeOutgoing(max: 10) else { Issue.record("expected nothing left queued"); return }

        guard case .refused(why) = machine.enqueue(Self.message(from: "self"), at: .zero, caller: 8) else { Issue.record("expected refused"); return }
        guard case .refused(why) = machine.enqueue(Self.message(from: "self"), at: .zero) else { Issue.record("expected refused"); return }
        #expect(machine.failures == 2)  // the one nobody awaited is counted
        Self.hear("a", in: &machine)
        guard case .refused(why) = machine.request("r", message: Self.message(from: "self"), responses: [], at: .zero, complete: { _ in }) else {
            Issue.record("expected the request refused")
            return
        }
        guard case .empty = machine.takeOutgoing(max: 10) else { Issue.record("expected nothing queued"); return }

        #expect(machine.start(receiver) == true)
        guard case .queued = machine.enqueue(Self.message(from: "self"), at: .zero) else { Issue.record("expected queued while starting again"); return }
    }

    @Test("a shutdown happens once: the goodbye is queued while closing, the close cancels the loops and refuses what comes after")
    func shutdownOnce() {
        var machine = Self.machine()
        #expect(machine.start(ClusterHeartbeatTests.NoSockets()) == true)
        _ = machine.subscribed(at: .zero)
        let loops = [Task<Void, Never> {}, Task<Void, Never> {}]
        #expect(machine.attach(loops).isEmpty)
        #expect(machine.beginShutdown() == .sayGoodbye)
        #expect(machine.beginShutdown() == .alreadyBegun)
        #expect(machine.receiver != nil)  // messages still applied while saying goodbye
        guard case .queued = machine.enqueue(Self.message(from: "self", .none(.adapterClose)), at: .zero) else { Issue.record("goodbye refused"); return }
        let effects = machine.close()
        #expect(effects.cancel == loops)
        #expect(machine.isClosed && machine.receiver == nil)
        #expect(machine.beginShutdown() == .alreadyBegun)
        #expect(machine.start(ClusterHeartbeatTests.NoSockets()) == false)
        guard case .refused = machine.enqueue(Self.message(from: "self"), at: .zero) else { Issue.record("expected refused"); return }
        #expect(machine.takeOutgoing(max: 10).isFinished)
    }

    @Test("a never-started adapter closes at once: no loop would say its goodbye; one whose start failed too")
    func shutdownOfANeverStartedAdapter() {
        var machine = Self.machine()
        #expect(machine.beginShutdown() == .close)
        _ = machine.close()
        #expect(machine.isClosed)
        var failed = Self.machine()
        #expect(failed.start(ClusterHeartbeatTests.NoSockets()) == true)
        _ = failed.subscribeFailed(reason: "down")
        #expect(failed.beginShutdown() == .close)
    }

    @Test("a subscription that fails after the shutdown began closes the adapter: the goodbye's caller is told at once")
    func subscriptionFailsWhileClosing() {
        var machine = Self.machine()
        #expect(machine.start(ClusterHeartbeatTests.NoSockets()) == true)
        #expect(machine.beginShutdown() == .sayGoodbye)
        guard case .queued = machine.enqueue(Self.message(from: "self", .none(.adapterClose)), at: .zero, caller: 7) else {
            Issue.record("goodbye refused")
            return
        }
        let effects = machine.subscribeFailed(reason: "down")
        #expect(effects.callers.map(\.caller) == [7])
        #expect(machine.isClosed)
    }

    @Test("a subscription that completes after the shutdown began starts the loops for the goodbye, without announcing; after the close, nothing")
    func subscribedWhileClosing() {
        var machine = Self.machine()
        #expect(machine.start(ClusterHeartbeatTests.NoSockets()) == true)
        #expect(machine.beginShutdown() == .sayGoodbye)
        guard case .startLoopsToSayGoodbye = machine.subscribed(at: .zero) else { Issue.record("expected startLoopsToSayGoodbye"); return }
        #expect(Self.drain(&machine).isEmpty)
        _ = machine.close()
        guard case .stop = machine.subscribed(at: .zero) else { Issue.record("expected stop"); return }
        let late = [Task<Void, Never> {}]
        #expect(machine.attach(late) == late)
    }

    // MARK: - Servers

    @Test("waiters for a server count wake when it is reached, stay while it is not; the close wakes the rest")
    func serverCountWaiters() {
        var machine = Self.machine()
        #expect(machine.waitForServers(1, 10) == false)  // this server alone: there already
        #expect(machine.waitForServers(2, 20) == true)
        #expect(machine.waitForServers(3, 30) == true)
        guard case .fresh(let delivery) = machine.arrived(Self.message(from: "a"), at: .zero) else { Issue.record("expected fresh"); return }
        #expect(delivery.joined)
        #expect(delivery.effects.ready == [20])
        #expect(delivery.effects.serverCount == 2)
        guard case .fresh(let again) = machine.arrived(Self.message(from: "a"), at: .seconds(1)) else { Issue.record("expected fresh"); return }
        #expect(!again.joined && again.effects.ready.isEmpty && again.effects.serverCount == nil)
        #expect(machine.close().ready == [30])
        #expect(machine.waitForServers(5, 50) == false)
    }

    @Test("own messages and other namespaces' are ignored; the emitter is delivered but never counted")
    func senders() {
        var machine = Self.machine()
        guard case .ignored = machine.arrived(Self.message(from: "self"), at: .zero) else { Issue.record("own"); return }
        guard case .ignored = machine.arrived(Self.message(from: "a", namespace: "/chat"), at: .zero) else { Issue.record("namespace"); return }
        guard case .fresh(let delivery) = machine.arrived(Self.message(from: NamespaceCluster.emitterUID), at: .zero) else { Issue.record("emitter"); return }
        #expect(!delivery.joined)
        #expect(machine.serverCount == 1)
    }

    @Test("numbered messages: a copy is a duplicate, a gap is counted as missed; unnumbered ones always pass")
    func numbering() {
        var machine = Self.machine()
        func arrive(_ sequence: UInt64?) -> Machine.Arrival { machine.arrived(Self.message(from: "a", sequence: sequence), at: .zero) }
        guard case .fresh(let first) = arrive(5), first.missed == 0 else { Issue.record("first"); return }
        guard case .duplicate = arrive(5) else { Issue.record("copy"); return }
        guard case .duplicate = arrive(4) else { Issue.record("older"); return }
        guard case .fresh(let afterGap) = arrive(8), afterGap.missed == 2 else { Issue.record("gap"); return }
        guard case .fresh = arrive(nil) else { Issue.record("unnumbered"); return }
        #expect(machine.missed == 2)
    }

    /// Each sender may skip up to 2^53 - 3 numbers at once (its numbers are JSON's safe
    /// integers): 1,025 of them sum past `Int.max`, which used to trap.
    @Test("the count of missed messages saturates instead of overflowing")
    func missedSaturates() {
        var machine = Self.machine()
        for index in 0 ..< 1_025 {
            _ = machine.arrived(Self.message(from: "s\(index)", sequence: 1), at: .zero)
            guard case .fresh(let delivery) = machine.arrived(Self.message(from: "s\(index)", sequence: 9_007_199_254_740_991), at: .zero),
                  delivery.missed == 9_007_199_254_740_989 else {
                Issue.record("expected the gap of s\(index)")
                return
            }
        }
        #expect(machine.missed == Int.max)
    }

    @Test("liveness at injected times: silent for more than the heartbeat timeout is forgotten, and the requests it alone held up complete")
    func liveness() throws {
        var machine = Self.machine()
        Self.hear("a", "b", at: .zero, in: &machine)
        Self.hear("b", at: .seconds(6), in: &machine)
        #expect(machine.waitForServers(2, 1) == true)
        guard case .opened = machine.request("r", message: Self.message(from: "self"), responses: ["mine"], at: .zero, complete: { _ in }) else {
            Issue.record("expected opened")
            return
        }
        _ = machine.answer("r", from: "b", values: ["b's"])
        #expect(machine.forgetSilent(at: .seconds(10)).forgotten.isEmpty)  // exactly the timeout: not yet
        let (forgotten, effects) = machine.forgetSilent(at: .seconds(10) + .milliseconds(1))
        #expect(forgotten == ["a"])
        #expect(effects.serverCount == 2 && effects.ready == [1])
        let completion = try #require(effects.completions.first)
        #expect(completion.result == .success(["mine", "b's"]))
        #expect(machine.serverCount == 2)
    }

    @Test("a forgotten server's number still recognises a late copy; only the last 1,000 servers forgotten keep theirs, and one heard again keeps its own")
    func forgottenNumbering() {
        var machine = Self.machine()
        _ = machine.arrived(Self.message(from: "back", sequence: 3), at: .zero)
        for index in 0..<ClusterNumbering.forgottenKept {
            _ = machine.arrived(Self.message(from: "s\(index)", sequence: 7), at: .zero)
            _ = machine.serverLeft("s\(index)")
        }
        guard case .duplicate = machine.arrived(Self.message(from: "s0", sequence: 7), at: .zero) else { Issue.record("late copy"); return }
        #expect(machine.numbering.last.count == ClusterNumbering.forgottenKept + 1)
        // "back" was never forgotten: when it is, s0 (forgotten longest ago) gives up its number.
        _ = machine.serverLeft("back")
        #expect(machine.numbering.last.count == ClusterNumbering.forgottenKept)
        #expect(machine.numbering.last["s0"] == nil && machine.numbering.last["back"] == 3)
        // s1, heard again, is counted again: when its turn to go comes, it keeps its number.
        _ = machine.arrived(Self.message(from: "s1", sequence: 8), at: .zero)
        _ = machine.serverLeft("extra")
        _ = machine.arrived(Self.message(from: "new", sequence: 1), at: .zero)
        _ = machine.serverLeft("new")
        #expect(machine.numbering.last["s1"] == 8)
        #expect(machine.numbering.forgotten.count == ClusterNumbering.forgottenKept)
    }

    @Test("a goodbye forgets its server at once and reports the count, even from a server not known")
    func goodbye() {
        var machine = Self.machine()
        Self.hear("a", in: &machine)
        #expect(machine.serverLeft("a").serverCount == 1)
        #expect(machine.serverLeft("stranger").serverCount == 1)
    }

    // MARK: - Requests

    @Test("a request alone answers at once; with servers it waits for each, once, and completes with every answer")
    func requestAnswers() throws {
        var machine = Self.machine()
        guard case .alone = machine.request("r0", message: Self.message(from: "self"), responses: [], at: .zero, complete: { _ in }) else { Issue.record("alone"); return }
        #expect(Self.drain(&machine).isEmpty)  // nothing to ask
        Self.hear("a", "b", in: &machine)
        let ask = Self.message(from: "self", .serverSideEmit(packet: ["ping"], requestId: "r1"))
        guard case .opened = machine.request("r1", message: ask, responses: [], at: .zero, complete: { _ in }) else { Issue.record("opened"); return }
        #expect(Self.drain(&machine) == [.serverSideEmit])
        #expect(machine.answer("r1", from: "a", values: [1]) == nil)
        #expect(machine.answer("r1", from: "a", values: [1]) == nil)  // a second answer from a is not counted
        let last = machine.answer("r1", from: "b", values: [2])
        let completion = try #require(last)
        #expect(completion.result == .success([1, 2]))
        #expect(machine.expire("r1") == nil)
    }

    @Test("a request fails at its deadline with the servers missing, when its message is not published, and at the close")
    func requestFailures() throws {
        var machine = Self.machine()
        Self.hear("a", "b", in: &machine)
        _ = machine.request("late", message: Self.message(from: "self"), responses: [], at: .zero, complete: { _ in })
        _ = machine.answer("late", from: "a", values: [])
        let expired = machine.expire("late")
        #expect(try #require(expired).result == .failure(.timedOut(missing: 1)))

        _ = machine.request("lost", message: Self.message(from: "self"), responses: [], at: .zero, complete: { _ in })
        guard case .batch(let items) = machine.takeOutgoing(max: 10) else { Issue.record("expected the request's message"); return }
        let failed = machine.publishFailed(items, at: .seconds(15), giveUp: false, reason: "down")
        #expect(failed.retry.isEmpty)
        #expect(failed.effects.completions.map(\.result) == [.failure(.publishFailed("down"))])
        #expect(machine.failures == 0)  // the request's caller was told

        _ = machine.request("open", message: Self.message(from: "self"), responses: [], at: .zero, complete: { _ in })
        #expect(machine.close().completions.map(\.result) == [.failure(.closed)])
        guard case .refused(.closed) = machine.request("after", message: Self.message(from: "self"), responses: [], at: .zero, complete: { _ in }) else {
            Issue.record("expected closed")
            return
        }
    }

    @Test("a broadcast with acks is told the other servers' counts and acks while it listens")
    func ackListener() {
        var machine = Self.machine()
        Self.hear("a", "b", in: &machine)
        #expect(machine.listen("b1", ClusterRequests.AckListener(onCount: { _ in }, onAck: { _ in })) == 2)
        #expect(machine.listener("b1") != nil)
        machine.stopListening("b1")
        #expect(machine.listener("b1") == nil)
    }
}

extension ClusterOutbox.Take {
    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}
