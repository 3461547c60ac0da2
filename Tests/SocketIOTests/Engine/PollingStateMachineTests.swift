@testable import SocketIO
import SocketIOProtocol
import Testing

/// The long-polling transport's state machine, input by input: what each returns and what it
/// leaves, with no I/O (waiters are plain values here).
@Suite struct PollingStateMachineTests {
    typealias Machine = PollingStateMachine<String, Int, String>

    static func opened() -> Machine {
        var machine = Machine(sid: nil)
        let result1 = machine.nextPoll()
        #expect(result1 == .some(nil), "the first GET is the handshake")
        machine.polling("get loop")
        machine.opened(sid: "abc", maxPayload: 100)
        return machine
    }

    @Test("before the handshake nothing is posted; after it a send starts one POST loop, and the loop drains in order")
    func sendAndPost() {
        var machine = Machine(sid: nil)
        let result2 = machine.send([.message("early")], fenced: false)
        #expect(!result2, "no sid yet: queued")
        machine.opened(sid: "abc", maxPayload: nil)
        let result3 = machine.send([.message("a")], fenced: false)
        #expect(result3, "a POST loop starts")
        let result4 = machine.send([.message("b")], fenced: false)
        #expect(!result4, "one POST loop at a time")
        let post = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(post?.sid == "abc")
        #expect(post?.body == PollingPayload.encode([.message("early"), .message("a"), .message("b")], version: .v4))
        let result5 = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(result5 == nil, "empty: the loop ends")
        let result6 = machine.send([.message("c")], fenced: false)
        #expect(result6, "and the next send starts another")
    }

    /// A server sending a second `open` mid-session no longer moves the transport to another
    /// session id or payload limit, behind the engine's back (the engine ignores it).
    @Test("a later open packet changes neither the session id nor maxPayload")
    func laterOpenIgnored() {
        var machine = Self.opened()
        machine.opened(sid: "other", maxPayload: 1)
        _ = machine.send([.message("a"), .message("b")], fenced: false)
        let post = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(post?.sid == "abc")
        #expect(post?.body == PollingPayload.encode([.message("a"), .message("b")], version: .v4))
    }

    /// A GET body of many pings, answered faster than POSTs drain: one pong waits at a time
    /// (each used to be queued, millions from one 16 MiB body of `2`s); once it is posted, the
    /// next ping is answered again, and other packets keep their order around it.
    @Test("pongs not yet posted are queued once")
    func pongsCoalesce() {
        var machine = Self.opened()
        _ = machine.send([.message("a")], fenced: false)
        for _ in 0..<10_000 { _ = machine.send([.pong("")], fenced: false) }
        _ = machine.send([.message("b"), .pong("")], fenced: false)
        let first = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(first?.body == PollingPayload.encode([.message("a"), .pong(""), .message("b")], version: .v4))
        let drained = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(drained == nil)
        _ = machine.send([.pong("")], fenced: false)
        let next = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(next?.body == PollingPayload.encode([.pong("")], version: .v4), "posted, so the next ping gets its own")
    }

    @Test("a fence: what was queued before goes in an earlier POST than what comes after; batches respect maxPackets")
    func fencesAndBatches() {
        var machine = Self.opened()
        _ = machine.send([.message("1"), .message("2"), .message("3")], fenced: false)
        _ = machine.send([.message("disconnect")], fenced: true)
        let result7 = machine.nextPost(maxPackets: 2, version: .v4)
        #expect(result7?.body == PollingPayload.encode([.message("1"), .message("2")], version: .v4))
        let result8 = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(result8?.body == PollingPayload.encode([.message("3")], version: .v4))
        let result9 = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(result9?.body == PollingPayload.encode([.message("disconnect")], version: .v4))
    }

    @Test("pause with a GET in flight: the waiter runs when the GET ends; resume polls again and posts what queued")
    func pauseAndResume() {
        var machine = Self.opened()
        let result10 = machine.nextPoll()
        #expect(result10 == .some("abc"), "a GET in flight")
        let result11 = machine.pause(probe: 1, "paused")
        #expect(result11 == .pausing, "the GET is in flight: wait")
        let result12 = machine.nextPoll()
        #expect(result12 == nil, "no new GET while paused")
        let result13 = machine.send([.message("held")], fenced: false)
        #expect(!result13, "no POST while paused")
        let result14 = machine.pollEnded()
        #expect(result14 == "paused", "the last request ended: the waiter runs")
        let (poll, post) = machine.resume(probe: 1)
        #expect(poll && post)
        let result15 = machine.nextPoll()
        #expect(result15 == .some("abc"))
    }

    @Test("pause with nothing in flight completes at once; a pause after close does not happen")
    func pauseIdle() {
        var machine = Self.opened()
        _ = machine.pollEnded()
        let result16 = machine.pause(probe: 1, "now")
        #expect(result16 == .pausedNow)
        var closed = Self.opened()
        _ = closed.close()
        let result17 = closed.pause(probe: 1, "after close")
        #expect(result17 == .ignored)
    }

    @Test("the probe's timer beat its answer: the resume for the given-up probe came first, so its pause does not happen (nothing would resume it)")
    func resumeBeforePause() {
        var machine = Self.opened()
        let resumed = machine.resume(probe: 3)
        #expect(resumed.poll == false && resumed.post == false, "not paused: nothing to restart")
        let pause = machine.pause(probe: 3, "late pause")
        #expect(pause == .ignored)
        let sent = machine.send([.message("after the failed upgrade")], fenced: false)
        #expect(sent, "packets still go out on polling")
        let polled = machine.nextPoll()
        #expect(polled == .some("abc"), "and polling goes on")
    }

    @Test("close with a packet queued: it still goes out, then the close waiters are resumed")
    func closeDrains() {
        var machine = Self.opened()
        let result18 = machine.waitUntilClosed(1)
        #expect(result18 == false)
        _ = machine.send([.message("x")], fenced: false)
        _ = machine.nextPost(maxPackets: 16, version: .v4)  // a POST in flight
        _ = machine.send([.close], fenced: false)
        let action = machine.close()
        #expect(action.cancelPoll == nil, "the held GET stays open until the last POST is answered")
        #expect(!action.post && action.finish == nil, "the running POST loop takes the close packet")
        let result19 = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(result19?.body == PollingPayload.encode([.close], version: .v4))
        let result20 = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(result20 == nil)
        guard case .finish(let waiters) = machine.postsEnded() else {
            Issue.record("expected the close to finish")
            return
        }
        #expect(waiters == [1])
        #expect(machine.isClosing, "the GET ended by the shutdown that follows is no error")
        let result21 = machine.waitUntilClosed(2)
        #expect(result21, "finished: a later waiter is resumed at once")
    }

    @Test("close while paused for an upgrade: the queued close packet is posted anyway")
    func closeWhilePaused() {
        var machine = Self.opened()
        _ = machine.pollEnded()
        let result22 = machine.pause(probe: 1, "paused")
        #expect(result22 == .pausedNow)
        _ = machine.send([.close], fenced: false)
        let action = machine.close()
        #expect(action.post)
        let result23 = machine.nextPost(maxPackets: 16, version: .v4)
        #expect(result23?.body == PollingPayload.encode([.close], version: .v4))
    }

    @Test("close before the handshake drops what queued and finishes at once; discard finishes without posting")
    func closeEarlyAndDiscard() {
        var early = Machine(sid: nil)
        _ = early.send([.message("never")], fenced: false)
        let result24 = early.waitUntilClosed(7)
        #expect(result24 == false)
        let result25 = early.close()
        #expect(result25.finish == [7])
        var upgraded = Self.opened()
        _ = upgraded.send([.message("handed over")], fenced: false)
        let result26 = upgraded.takeUnsent()
        #expect(result26.packets == [.message("handed over")])
        let (poll, waiters) = upgraded.discard()
        #expect(poll == "get loop" && waiters.isEmpty)
        let result27 = upgraded.nextPoll()
        #expect(result27 == nil)
    }

    @Test("the server's close packet: no more polling; a failed GET then is not an error to report")
    func serverClose() {
        var machine = Self.opened()
        machine.closeReceived()
        #expect(machine.isClosing)
        let result28 = machine.nextPoll()
        #expect(result28 == nil)
    }

    @Test("a failed POST while closing drops the rest and finishes")
    func postFailsWhileClosing() {
        var machine = Self.opened()
        _ = machine.send([.message("a"), .close], fenced: false)
        _ = machine.nextPost(maxPackets: 1, version: .v4)
        _ = machine.close()
        machine.postFailed()
        guard case .finish = machine.postsEnded() else {
            Issue.record("expected the close to finish")
            return
        }
    }
}
