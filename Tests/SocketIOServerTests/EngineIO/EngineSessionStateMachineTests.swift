import Testing
@testable import SocketIOServer

/// The session rules, event by event, without sockets or clocks.
@Suite("EngineSessionStateMachine")
struct EngineSessionStateMachineTests {
    final class Probe {}
    typealias Machine = EngineSessionStateMachine<Int, Probe>

    static let timing = EngineTiming(
        pingInterval: .seconds(25), pingTimeout: .seconds(20), upgradeTimeout: .seconds(10), lingerTimeout: .seconds(20)
    )
    static let limits = PollingLimits(maxBufferedBytes: 100, maxFramesPerResponse: 2)

    func polling() -> Machine { Machine(polling: Self.limits, timing: Self.timing) }

    @Test("a GET waits for packets; a send answers it")
    func longPoll() {
        var machine = polling()
        guard case .wait = machine.poll(1) else { Issue.record("expected wait"); return }
        guard case .respond(1, let frames) = machine.send([.text("4a")]) else { Issue.record("expected respond"); return }
        #expect(frames == [.text("4a")])
    }

    @Test("queued packets go out at the next GET, at most maxFramesPerResponse each")
    func batching() {
        var machine = polling()
        guard case .queued = machine.send([.text("4a"), .text("4b"), .text("4c")]) else { Issue.record("expected queued"); return }
        guard case .respond(let first) = machine.poll(1) else { Issue.record("expected respond"); return }
        #expect(first == [.text("4a"), .text("4b")])
        guard case .respond(let second) = machine.poll(2) else { Issue.record("expected respond"); return }
        #expect(second == [.text("4c")])
    }

    @Test("a duplicate GET closes the session and releases the first with close")
    func duplicateGet() {
        var machine = polling()
        _ = machine.poll(1)
        guard case .duplicate(let effects) = machine.poll(2) else { Issue.record("expected duplicate"); return }
        #expect(effects.release?.waiter == 1)
        #expect(effects.release?.frames == [.close])
        #expect(effects.reason == .transportError("overlapping GET requests"))
        #expect(machine.isClosed)
        guard case .reject = machine.poll(3) else { Issue.record("expected reject"); return }
    }

    @Test("a duplicate POST closes the session")
    func duplicatePost() {
        var machine = polling()
        guard case .proceed = machine.beginPost() else { Issue.record("expected proceed"); return }
        guard case .duplicate = machine.beginPost() else { Issue.record("expected duplicate"); return }
        #expect(machine.isClosed)
    }

    @Test("a client that does not poll overflows the buffer and is closed")
    func overflow() {
        var machine = polling()
        guard case .queued = machine.send([.text(String(repeating: "x", count: 90))]) else { Issue.record("queued"); return }
        guard case .close(let effects) = machine.send([.text(String(repeating: "y", count: 20))]) else {
            Issue.record("expected close")
            return
        }
        #expect(effects.reason == .transportError("polling buffer full: the client does not poll"))
    }

    @Test("upgrade: probe answered and the GET released, GETs get noop meanwhile, upgrade flushes the buffer")
    func upgrade() {
        var machine = polling()
        let probe = Probe()
        _ = machine.poll(1)
        let timer = machine.upgradeRequested(by: probe)
        #expect(timer?.kind == .upgrade)
        #expect(timer?.delay == .seconds(10))
        guard case .answer(let answered, let release) = machine.probed(by: probe) else { Issue.record("answer"); return }
        #expect(answered === probe)
        #expect(release == 1)
        guard case .respond(let noop) = machine.poll(2) else { Issue.record("expected noop"); return }
        #expect(noop == [.noop])
        guard case .queued = machine.send([.text("4late")]) else { Issue.record("expected queued"); return }
        guard case .upgraded(let socket, let flush, nil) = machine.upgraded(by: probe) else { Issue.record("upgraded"); return }
        #expect(socket === probe)
        #expect(flush == [.text("4late")])
        #expect(machine.isActive(probe))
        guard case .write(let target, _) = machine.send([.text("4x")]), target === probe else { Issue.record("write"); return }
        guard case .reject = machine.poll(3) else { Issue.record("expected reject"); return }
        // The upgrade timer is stale now.
        guard case .none = machine.timerFired(.upgrade, generation: timer?.generation ?? 0) else { Issue.record("stale"); return }
    }

    @Test("the carrier: polling until the upgrade completes, WebSocket after, and still after the close")
    func carrier() {
        var machine = polling()
        let probe = Probe()
        #expect(machine.carrier == .polling)
        _ = machine.upgradeRequested(by: probe)
        _ = machine.probed(by: probe)
        #expect(machine.carrier == .polling, "probing does not move the session")
        _ = machine.upgraded(by: probe)
        #expect(machine.carrier == .websocket)
        _ = machine.close(.transportClose)
        #expect(machine.carrier == .websocket, "the last transport, once closed")
        #expect(Machine(webSocket: Probe(), timing: Self.timing).carrier == .websocket)
    }

    @Test("upgrade timeout and a failing probe both return to polling; a second upgrade is refused while one runs")
    func upgradeAborted() {
        var machine = polling()
        let probe = Probe()
        let timer = machine.upgradeRequested(by: probe)
        let refused = machine.upgradeRequested(by: Probe())
        #expect(refused == nil)
        guard case .abortUpgrade(let aborted) = machine.timerFired(.upgrade, generation: timer?.generation ?? 0),
              aborted === probe else { Issue.record("abort"); return }
        #expect(machine.acceptsPolling)
        let second = Probe()
        _ = machine.upgradeRequested(by: second)
        let failed = machine.probeFailed(second)
        #expect(failed)
        #expect(machine.acceptsPolling)
    }

    @Test("heartbeat: ping after pingInterval, pong re-arms, silence closes with ping timeout")
    func heartbeat() {
        var machine = polling()
        let first = machine.start()
        #expect(first.delay == .seconds(25))
        guard case .heartbeat(.sendPing(let deadline)) = machine.timerFired(.heartbeat, generation: first.generation) else {
            Issue.record("expected ping")
            return
        }
        #expect(deadline.delay == .seconds(20))
        let next = machine.pong()
        #expect(next?.delay == .seconds(25))
        let unasked = machine.pong()  // an unasked pong changes nothing
        #expect(unasked == nil)
        guard case .none = machine.timerFired(.heartbeat, generation: deadline.generation) else { Issue.record("stale"); return }
        guard case .heartbeat(.sendPing(let second)) = machine.timerFired(.heartbeat, generation: next?.generation ?? 0) else {
            Issue.record("expected ping")
            return
        }
        guard case .heartbeat(.close(let effects)) = machine.timerFired(.heartbeat, generation: second.generation) else {
            Issue.record("expected close")
            return
        }
        #expect(effects.reason == .pingTimeout)
    }

    @Test("v3 heartbeat: the client pings; each ping re-arms the deadline; silence past pingInterval + pingTimeout closes")
    func heartbeatV3() {
        var machine = Machine(polling: Self.limits, timing: Self.timing, version: .v3)
        let first = machine.start()
        #expect(first.delay == .seconds(45), "the first client ping is due within pingInterval + pingTimeout")
        let rearmed = machine.clientPinged()
        #expect(rearmed?.delay == .seconds(45))
        guard case .none = machine.timerFired(.heartbeat, generation: first.generation) else {
            Issue.record("the old deadline is stale after a ping")
            return
        }
        #expect(machine.pong() == nil, "a pong is not the client's to send in v3")
        guard case .heartbeat(.close(let effects)) = machine.timerFired(.heartbeat, generation: rearmed?.generation ?? 0) else {
            Issue.record("expected close: the server never pings in v3")
            return
        }
        #expect(effects.reason == .pingTimeout)
        var v4 = polling()
        #expect(v4.clientPinged() == nil, "v4: a client ping is refused (the session closes it)")
    }

    @Test("a server-side close without a GET lingers until the next GET gets the last packets and close")
    func linger() {
        var machine = polling()
        _ = machine.send([.text("41")])
        let effects = machine.close(.forcedClose)
        #expect(effects?.linger?.kind == .linger)
        guard case .respondAndFinish(let frames) = machine.poll(1) else { Issue.record("expected the last packets"); return }
        #expect(frames == [.text("41"), .close])
        let again = machine.close(.forcedClose)
        #expect(again == nil)
    }

    /// A response carries at most `maxFramesPerResponse` packets also when the session closes
    /// (python-engineio's client drops a body of more than 16): a held GET answered by a
    /// server-side close gets the first of them, the next GETs the rest, the last ending with
    /// `close`. Before, the held GET got everything and `close` in one body.
    @Test("a server-side close answers a held GET with one response at most; the rest, then close, at the next GETs")
    func closeKeepsTheResponseLimit() throws {
        var machine = polling()
        guard case .wait = machine.poll(1) else { Issue.record("expected wait"); return }
        _ = machine.send([.text("4a")])  // answers GET 1
        guard case .wait = machine.poll(2) else { Issue.record("expected wait"); return }
        guard case .respond(2, _) = machine.send([.text("4b")]) else { Issue.record("expected respond"); return }
        guard case .wait = machine.poll(3) else { Issue.record("expected wait"); return }
        machine.transport = .polling(Self.queued(machine, [.text("4c"), .text("4d"), .text("41")]))
        let closed = machine.close(.forcedClose)
        let effects = try #require(closed)
        #expect(effects.release?.waiter == 3)
        #expect(effects.release?.frames == [.text("4c"), .text("4d")])
        #expect(effects.linger?.kind == .linger, "the rest waits for the next GET")
        guard case .respondAndFinish(let last) = machine.poll(4) else { Issue.record("expected the last packets"); return }
        #expect(last == [.text("41"), .close])

        var small = polling()
        guard case .wait = small.poll(1) else { Issue.record("expected wait"); return }
        small.transport = .polling(Self.queued(small, [.text("41")]))
        let fits = small.close(.forcedClose)
        #expect(fits?.release?.frames == [.text("41"), .close], "it all fits in one")

        var gone = polling()
        guard case .wait = gone.poll(1) else { Issue.record("expected wait"); return }
        gone.transport = .polling(Self.queued(gone, [.text("4c"), .text("4d"), .text("4e")]))
        let ended = gone.close(.pingTimeout)
        let dropped = try #require(ended)
        #expect(dropped.release?.frames == [.text("4c"), .close], "a session that does not linger ends with this response")
        #expect(dropped.linger == nil)
    }

    /// `machine`'s polling buffer with `frames` queued and its GET still held.
    static func queued(_ machine: Machine, _ frames: [EngineFrame]) -> PollingBuffer<Int> {
        guard case .polling(var buffer) = machine.transport else { return PollingBuffer(limits: limits) }
        buffer.appendUnbounded(frames)
        return buffer
    }

    /// Closed once is closed: a second close (the app's again, the server stopping) used to
    /// report the session closed a second time and end the linger, so its GET got a 400.
    @Test("a lingering session closed again: nothing to do, and the linger still ends at the next GET or its timer")
    func closeWhileLingering() throws {
        var machine = polling()
        _ = machine.send([.text("41")])
        #expect(machine.close(.forcedClose)?.linger?.kind == .linger)
        #expect(machine.close(.forcedClose) == nil)
        #expect(machine.close(.serverShuttingDown) == nil)
        guard case .respondAndFinish(let frames) = machine.poll(1) else { Issue.record("expected the last packets"); return }
        #expect(frames == [.text("41"), .close])

        var unpolled = polling()
        let linger = try #require(unpolled.close(.forcedClose)?.linger)
        #expect(unpolled.close(.serverShuttingDown) == nil)
        guard case .finishLinger = unpolled.timerFired(.linger, generation: linger.generation) else {
            Issue.record("expected the linger to end")
            return
        }
    }

    @Test("a ping timeout forgets a polling session at once: no lingering packets, the next GET is refused")
    func pingTimeoutDoesNotLinger() {
        var machine = polling()
        _ = machine.send([.text("2")])
        let effects = machine.close(.pingTimeout)
        #expect(effects?.linger == nil)
        guard case .reject = machine.poll(1) else { Issue.record("expected the GET to be refused"); return }
    }

    @Test("the client's close releases its held GET with a noop, not with close")
    func clientCloseReleasesTheHeldGETWithANoop() {
        var machine = polling()
        guard case .wait = machine.poll(1) else { Issue.record("expected the GET to be held"); return }
        let effects = machine.close(.transportClose)
        #expect(effects?.release?.waiter == 1)
        #expect(effects?.release?.frames == [.noop])
        guard case .reject = machine.poll(2) else { Issue.record("expected the session to be gone"); return }
    }

    @Test("the connection of a held GET closing closes the session; of a GET answered already, nothing")
    func heldPollConnectionCloses() {
        var machine = polling()
        guard case .wait(let first) = machine.poll(1) else { Issue.record("expected the GET to be held"); return }
        guard case .respond(1, _) = machine.send([.text("4a")]) else { Issue.record("expected the GET answered"); return }
        #expect(machine.pollConnectionClosed(held: first) == nil, "answered: the session goes on")
        guard case .wait(let second) = machine.poll(2) else { Issue.record("expected the next GET to be held"); return }
        #expect(second == first + 1)
        #expect(machine.pollConnectionClosed(held: first) == nil, "an earlier GET's connection")
        let effects = machine.pollConnectionClosed(held: second)
        #expect(effects?.reason == .transportError("poll connection closed prematurely"))
        #expect(effects?.release?.waiter == 2)
        guard case .reject = machine.poll(3) else { Issue.record("expected the session to be gone"); return }
    }

    @Test("the active WebSocket ending closes the session without a goodbye; a server close sends close")
    func webSocketEnds() {
        let socket = Probe()
        var machine = Machine(webSocket: socket, timing: Self.timing)
        var closing = machine
        let effects = machine.webSocketEnded(socket, reason: .transportClose)
        #expect(effects?.webSocket?.socket === socket)
        #expect(effects?.webSocket?.frames == [])
        let other = machine.webSocketEnded(Probe(), reason: .transportClose)
        #expect(other == nil)
        let forced = closing.close(.serverShuttingDown)
        #expect(forced?.webSocket?.frames == [.close])
    }
}

@Suite("PacketLog")
struct PacketLogTests {
    @Test("frames after an offset, in order; unknown or dropped offsets cannot be recovered")
    func replay() {
        var log = PacketLog(maxEntries: 3, maxAge: .seconds(10))
        for (index, offset) in ["a", "b", "c", "d"].enumerated() {
            log.append(offset: offset, frames: [.text("42[\(index)]")], now: .seconds(index))
        }
        #expect(log.frames(after: "a") == nil)  // dropped: at most 3 kept
        #expect(log.frames(after: "b") == [.text("42[2]"), .text("42[3]")])
        #expect(log.frames(after: "d") == [])
        #expect(log.frames(after: "zzz") == nil)
        // Old entries age out, except the newest.
        log.append(offset: "e", frames: [.text("42[4]")], now: .seconds(100))
        #expect(log.entries.map(\.offset) == ["e"])
        #expect(log.frames(after: "e") == [])
    }
}
