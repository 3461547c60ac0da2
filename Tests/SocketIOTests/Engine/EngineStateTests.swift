import NIOConcurrencyHelpers
@testable import SocketIO
import SocketIOProtocol
import Testing

/// The engine's state, event by event, with a transport that only records what is queued on it.
@Suite struct EngineStateTests {
    /// Records what is queued; asks for a write on the first queue after each `start`.
    final class RecordingTransport: EngineTransport {
        let name = "recording"
        let queued = NIOLockedValueBox<[[EnginePacket]]>([])
        /// `afterPeerRead` of each queue, in order.
        let fences = NIOLockedValueBox<[Bool]>([])
        func start() {}
        func enqueue(_ packets: [EnginePacket], afterPeerRead: Bool) -> TransportWrite? {
            queued.withLockedValue { $0.append(packets) }
            fences.withLockedValue { $0.append(afterPeerRead) }
            return nil
        }
        func close() {}
        func waitUntilClosed() async {}
        var all: [[EnginePacket]] { queued.withLockedValue { $0 } }
    }

    static let open = EnginePacket.open(#"{"sid":"abc","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":1000}"#)

    @Test func openingNumbersTheTransportAndInstallingItQueuesWhatWasHeldFirst() throws {
        var state = EngineState(version: .v4)
        let opening = state.startOpening(on: .polling)
        let started = try #require(opening)
        #expect(started.id == 1)
        #expect(state.kind == .polling)
        let again = state.startOpening(on: .polling)
        #expect(again == nil, "starting twice does nothing")

        let transport = RecordingTransport()
        let refused = state.install(transport, id: started.id + 1)
        #expect(refused == nil, "a transport made for another id is refused")
        let installed = state.install(transport, id: started.id)
        #expect(installed != nil)
        #expect(transport.all.isEmpty, "nothing was held")
    }

    @Test func sendsBeforeTheOpenAreRefusedThenGoToTheTransportInOrder() throws {
        var state = EngineState(version: .v4)
        let opening = state.startOpening(on: .websocket)
        let started = try #require(opening)
        let transport = RecordingTransport()
        _ = state.install(transport, id: started.id)
        let early = state.send([.message("early")], afterPeerRead: false)
        #expect(early.sent == false, "not open yet")

        guard case .received(_, .opened) = state.step(for: .packet(Self.open), from: started.id) else {
            Issue.record("the open packet opens the session")
            return
        }
        let a = state.send([.message("a")], afterPeerRead: false)
        let b = state.send([.message("b")], afterPeerRead: true)
        #expect(a.sent && b.sent)
        #expect(transport.all == [[.message("a")], [.message("b")]])
    }

    @Test func eventsOfAnotherTransportAreStaleOrTheProbes() throws {
        var state = EngineState(version: .v4)
        let opening = state.startOpening(on: .polling)
        let started = try #require(opening)
        guard case .stale = state.step(for: .packet(.noop), from: started.id + 7) else { Issue.record("stale"); return }
        guard case .ended = state.step(for: .ended(.transportClose), from: started.id) else { Issue.record("ended"); return }
        let other = state.transportEnded(.transportClose, from: started.id + 7)
        #expect(other == .none, "only the active transport's end counts")
    }

    @Test func aNewerTimerIsKeptAndAnOlderOneCancelledInstead() {
        var state = EngineState(version: .v4)
        let cancelled = NIOLockedValueBox<[Int]>([])
        func timer(_ generation: Int) -> EngineState.Timer {
            (generation, { cancelled.withLockedValue { $0.append(generation) } }, { false })
        }
        let first = state.keep(timer(2))
        #expect(first == nil)
        state.keep(timer(1))?()
        #expect(cancelled.withLockedValue { $0 } == [1], "an older timer never replaces a newer one")
        state.keep(timer(3))?()
        #expect(cancelled.withLockedValue { $0 } == [1, 2])
        #expect(state.timer?.generation == 3)
        #expect(state.isStillDue(3) == false)

        let detached = state.detach()
        #expect(detached.timer?.generation == 3)
        #expect(state.timer == nil)
    }

    /// An open polling session whose upgrade's probe answered: polling pauses, sends are held.
    static func pausedForTheUpgrade() throws -> (EngineState, RecordingTransport) {
        var state = EngineState(version: .v4)
        let opening = state.startOpening(on: .polling)
        let started = try #require(opening)
        let transport = RecordingTransport()
        _ = state.install(transport, id: started.id)
        _ = state.step(for: .packet(Self.open), from: started.id)
        let upgrade = state.startUpgrade()
        let probe = try #require(upgrade)
        #expect(state.upgrade.probeReceived(.pong("probe"), from: probe) == .pausePolling)
        return (state, transport)
    }

    /// Packets emitted while polling paused for the upgrade come out of `detach`, for the
    /// engine's close to send before its close packet; before, the close dropped them without a
    /// word (a client that connected, emitted and closed at once lost its emits and DISCONNECT).
    @Test func packetsHeldForTheUpgradeComeOutWithTheTransport() throws {
        var (state, transport) = try Self.pausedForTheUpgrade()
        let bye = state.send([.message("bye")], afterPeerRead: false)
        #expect(bye.sent && transport.all.isEmpty, "held while polling pauses")
        #expect(state.machine.close() != .none)
        let detached = state.detach()
        #expect(detached.held == [.message("bye")])
        #expect(state.held.isEmpty)
    }

    /// A namespace DISCONNECT sent after a fence while the upgrade holds packets keeps its
    /// fence when they are let go (it went out in one batch with the events before it, which
    /// socket.io's Node server then drops).
    @Test func heldPacketsKeepTheirFences() throws {
        var (state, transport) = try Self.pausedForTheUpgrade()
        _ = state.send([.message("2[\"last\"]")], afterPeerRead: false)
        _ = state.send([.message("1")], afterPeerRead: true)
        _ = state.send([.message("2[\"after\"]")], afterPeerRead: false)
        #expect(transport.all.isEmpty, "held while polling pauses")
        _ = state.abandonProbe()
        #expect(transport.all == [[.message("2[\"last\"]")], [.message("1"), .message("2[\"after\"]")]])
        #expect(transport.fences.withLockedValue { $0 } == [false, true])
    }
}

@Suite struct FencedPacketsTests {
    @Test func runsMergeUntilAFenceAndGoOutWithIt() {
        var packets = FencedPackets()
        packets.append([.message("a")], fenced: false)
        packets.append([.message("b")], fenced: false)
        packets.append([.message("c")], fenced: true)
        packets.append([], fenced: true)
        #expect(packets.count == 3)
        #expect(packets.packets == [.message("a"), .message("b"), .message("c")])
        let transport = EngineStateTests.RecordingTransport()
        _ = packets.enqueue(on: transport, after: [.upgrade])
        #expect(transport.all == [[.upgrade], [.message("a"), .message("b")], [.message("c")]])
        #expect(transport.fences.withLockedValue { $0 } == [false, false, true])
    }

    @Test func pollingsUnsentPacketsKeepTheirFences() {
        var outbox = PollingOutbox()
        outbox.append([.message("a")], fenced: false)
        outbox.append([.message("b")], fenced: true)
        outbox.append([.message("c")], fenced: false)
        outbox.append([.message("d")], fenced: true)
        var taken = outbox.takeAll()
        #expect(outbox.isEmpty)
        var held = FencedPackets()
        held.append([.message("e")], fenced: true)
        taken.append(held)
        let transport = EngineStateTests.RecordingTransport()
        _ = taken.enqueue(on: transport)
        #expect(transport.all == [[.message("a")], [.message("b"), .message("c")], [.message("d")], [.message("e")]])
        #expect(transport.fences.withLockedValue { $0 } == [false, true, true, true])
    }
}
