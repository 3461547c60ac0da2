import SocketIOProtocol
@testable import SocketIOServer
import Testing

/// What the cluster adapter publishes, in which order, and whom it tells: numbering, batches,
/// the publish loop's parking, retries against the publish timeout and the heartbeat, at
/// injected times.
@Suite("ClusterState publishing")
struct ClusterStatePublishingTests {
    typealias Machine = ClusterStateTests.Machine

    /// The error of a failed outcome, `nil` for success.
    static func failure(_ result: Result<Void, ClusterError>) -> ClusterError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }

    static func message(_ type: ClusterMessageType = .heartbeat) -> ClusterMessage {
        ClusterStateTests.message(from: "self", .none(type))
    }

    @Test("messages are numbered in the order queued and taken a batch at a time, oldest first")
    func numberedBatches() {
        var machine = ClusterStateTests.machine()
        for second in 1...3 { _ = machine.enqueue(Self.message(), at: .seconds(second)) }
        guard case .batch(let first) = machine.takeOutgoing(max: 2), case .batch(let second) = machine.takeOutgoing(max: 2) else {
            Issue.record("expected two batches")
            return
        }
        #expect(first.map(\.message.sequence) == [1, 2])
        #expect(second.map(\.message.sequence) == [3])
        #expect(second.map(\.madeAt) == [.seconds(3)])
        guard case .empty = machine.takeOutgoing(max: 2) else { Issue.record("expected empty"); return }
    }

    @Test("the publish loop parks on an empty outbox and is woken by the next message, once")
    func parkedConsumer() {
        var machine = ClusterStateTests.machine()
        #expect(machine.waitForOutgoing(7) == true)
        guard case .queued(sequence: 1, wake: 7?) = machine.enqueue(Self.message(), at: .zero) else { Issue.record("expected the wake"); return }
        guard case .queued(sequence: 2, wake: nil) = machine.enqueue(Self.message(), at: .zero) else { Issue.record("woken twice"); return }
        #expect(machine.waitForOutgoing(8) == false)  // messages are there: look again at once
    }

    @Test("the close drops what is queued, tells its callers, and wakes the parked loop to finish")
    func closeDrops() {
        var machine = ClusterStateTests.machine()
        _ = machine.enqueue(Self.message(), at: .zero, caller: 1)
        _ = machine.enqueue(Self.message(), at: .zero)
        guard case .batch = machine.takeOutgoing(max: 10) else { Issue.record("expected a batch"); return }  // in flight
        _ = machine.enqueue(Self.message(), at: .zero, caller: 3)
        let effects = machine.close()
        #expect(effects.callers.map(\.caller) == [3])  // 1 is being published: its outcome tells it
        #expect(effects.callers.map { Self.failure($0.result) } == [.closed])
        #expect(machine.waitForOutgoing(9) == false)
        #expect(machine.takeOutgoing(max: 10).isFinished)
    }

    @Test("an awaited publish is told once: by the publish, or by its own deadline, whichever comes first")
    func callerToldOnce() {
        var machine = ClusterStateTests.machine()
        _ = machine.enqueue(Self.message(), at: .zero, caller: 1)
        guard case .queued(let second, _) = machine.enqueue(Self.message(), at: .zero, caller: 2) else { Issue.record("refused"); return }
        #expect(machine.abandon(second) == 2)
        guard case .batch(let items) = machine.takeOutgoing(max: 10) else { Issue.record("expected a batch"); return }
        let effects = machine.published(items)
        #expect(effects.callers.map(\.caller) == [1])
        #expect(effects.callers.map { Self.failure($0.result) } == [nil])
        #expect(machine.abandon(1) == nil)
    }

    @Test("a failed publish retries what is within the publish timeout; the rest fails: callers told, the unawaited counted and logged")
    func publishTimeout() {
        var machine = ClusterStateTests.machine()
        _ = machine.enqueue(Self.message(.broadcast), at: .zero)
        _ = machine.enqueue(Self.message(), at: .zero, caller: 2)
        _ = machine.enqueue(Self.message(), at: .seconds(5))
        guard case .batch(let items) = machine.takeOutgoing(max: 10) else { Issue.record("expected a batch"); return }
        let early = machine.publishFailed(items, at: .seconds(14), giveUp: false, reason: "down")
        #expect(early.retry.count == 3 && early.effects.callers.isEmpty && machine.failures == 0)
        let late = machine.publishFailed(early.retry, at: .seconds(15), giveUp: false, reason: "down")
        #expect(late.retry.map(\.message.sequence) == [3])
        #expect(late.effects.callers.map(\.caller) == [2])
        #expect(late.effects.callers.map { Self.failure($0.result) } == [.publishFailed("down")])
        #expect(late.effects.unpublished.map(\.type) == [.broadcast])
        #expect(machine.failures == 1)
        let closing = machine.publishFailed(late.retry, at: .seconds(15), giveUp: true, reason: "closing")
        #expect(closing.retry.isEmpty && machine.failures == 2)
    }

    @Test("a heartbeat is due a heartbeat interval after the last message made, whatever it was")
    func heartbeat() {
        var machine = ClusterStateTests.machine()
        #expect(machine.heartbeat(at: .seconds(3)) == .wait(.seconds(2)))
        #expect(machine.heartbeat(at: .seconds(5)) == .published(wake: nil))
        #expect(machine.heartbeat(at: .seconds(5)) == .wait(.seconds(5)))
        _ = machine.enqueue(Self.message(.broadcast), at: .seconds(7))
        #expect(machine.heartbeat(at: .seconds(10)) == .wait(.seconds(2)))
        _ = machine.enqueue(Self.message(.broadcast), at: .seconds(6))  // made before the last one, queued after
        #expect(machine.heartbeat(at: .seconds(10)) == .wait(.seconds(2)))
        #expect(ClusterStateTests.drain(&machine) == [.heartbeat, .broadcast, .broadcast])
        _ = machine.close()
        #expect(machine.heartbeat(at: .seconds(20)) == .stop)
    }
}
