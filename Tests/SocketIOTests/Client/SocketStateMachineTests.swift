@testable import SocketIO
import SocketIOProtocol
import Testing

@Suite struct SocketStateMachineTests {
    func connecting(_ namespace: String = "/", version: SocketIOVersion = .v5, limit: Int = 3) -> SocketStateMachine {
        var machine = SocketStateMachine(namespace: namespace, version: version, sendBufferLimit: limit)
        _ = machine.connect(engineOpen: false)
        return machine
    }

    @Test func connectOpensTheEngineOrSendsConnect() {
        var closed = SocketStateMachine(namespace: "/", version: .v5, sendBufferLimit: 3)
        #expect(closed.connect(engineOpen: false) == .openEngine)
        #expect(closed.engineOpened(version: .v5) == .sendConnect)
        #expect(closed.connect(engineOpen: true) == .none, "already connecting")

        var open = SocketStateMachine(namespace: "/chat", version: .v5, sendBufferLimit: 3)
        #expect(open.connect(engineOpen: true, sid: "e1") == .sendConnect)
        #expect(open.engineOpened(version: .v5, sid: "e1") == .none, "that session's opening reaches the socket after: no second CONNECT")
        #expect(open.engineOpened(version: .v5, sid: "e2") == .sendConnect, "a new session's: CONNECT on it")
    }

    /// After a loss the manager reconnects and publishes `reconnect` before it tells the socket;
    /// an app that connects on that event must not make the socket send CONNECT twice (the
    /// server would take the second as another connection of the same session).
    @Test func connectingOnTheReconnectEventSendsOneConnect() {
        var machine = connecting()
        _ = machine.engineOpened(version: .v5, sid: "e1")
        _ = machine.received(SocketPacket(kind: .connect, data: ["sid": "s", "pid": "p"]))
        _ = machine.engineClosed(.transportClose)
        #expect(machine.connect(engineOpen: true, sid: "e2") == .sendConnect, "the app, on the reconnect event")
        #expect(machine.engineOpened(version: .v5, sid: "e2") == .none, "the manager, right after")
    }

    /// A socket waiting to reconnect whose reconnection's handshake is refused (401, or a version
    /// the server does not speak): the manager stops, and the socket stops waiting, so its
    /// callers hear it and the manager lets go of it. Before, only a connecting socket did, and
    /// this one stayed active, waiting for a reconnection that would never come.
    @Test func aRefusedReconnectionEndsTheWaitForIt() {
        var machine = SocketStateMachine(namespace: "/", version: .v5, sendBufferLimit: 3, reconnects: true)
        _ = machine.connect(engineOpen: false)
        _ = machine.engineOpened(version: .v5, sid: "e1")
        _ = machine.received(SocketPacket(kind: .connect, data: ["sid": "s"]))
        #expect(machine.engineClosed(.transportClose) == .disconnected(.transportClose, sendDisconnect: false, wasConnected: true))
        #expect(machine.isActive, "waiting for the reconnection")
        let failed = machine.engineFailed()
        #expect(failed, "the refusal ends the wait: its callers are told")
        #expect(!machine.isActive)
        #expect(machine.status == .disconnected(.transportClose))
        let again = machine.engineFailed()
        #expect(!again, "once")
        #expect(machine.engineOpened(version: .v5, sid: "e2") == .none, "a later session is not joined without a connect()")
    }

    /// The server's DISCONNECT fails every ack caller (no reconnection follows), so the buffered
    /// emits with acks are dropped: a later `connect()` must not send what their callers were told
    /// failed. An emit without an ack stays buffered for it, as in socket.io's client. Before,
    /// both were flushed on the next CONNECT.
    @Test func aServerDisconnectDropsTheBufferedEmitsWhoseCallersFail() {
        var machine = connecting()
        _ = machine.engineOpened(version: .v5, sid: "e1")
        let acked = SocketPacket.event("a", [1], namespace: "/", id: machine.makeAckID())
        let plain = SocketPacket.event("b", [2], namespace: "/")
        #expect(machine.emit(acked) == .buffered)
        #expect(machine.emit(plain) == .buffered)
        #expect(machine.received(SocketPacket(kind: .disconnect)) == .disconnected(.ioServerDisconnect))
        #expect(machine.sendBuffer == [plain])
        #expect(machine.connect(engineOpen: true, sid: "e1") == .sendConnect)
        #expect(machine.received(SocketPacket(kind: .connect, data: ["sid": "s"])) == .connected(id: "s", early: [], flush: [plain]))
    }

    @Test func v4DefaultNamespaceIsConnectedByTheServer() {
        var root = connecting("/", version: .v4)
        #expect(root.engineOpened(version: .v4, sid: "e1") == .awaitConnect, "no CONNECT, but its deadline")
        #expect(root.received(SocketPacket(kind: .connect)) == .connected(id: "e1", early: [], flush: []))
        var admin = connecting("/admin", version: .v4)
        #expect(admin.engineOpened(version: .v4, sid: "e1") == .sendConnect)
        #expect(admin.received(SocketPacket(kind: .connect, namespace: "/admin")) == .connected(id: "/admin#e1", early: [], flush: []))
    }

    /// Only the deadline of the CONNECT still awaited gives it up; an accept after that is left.
    @Test func anUnansweredConnectIsGivenUpAndALateAcceptLeft() {
        var machine = connecting("/chat")
        #expect(machine.engineOpened(version: .v5, sid: "e1") == .sendConnect)
        let first = machine.connectSent()
        #expect(machine.engineOpened(version: .v5, sid: "e2") == .sendConnect)
        let second = machine.connectSent()
        let stale = machine.connectTimedOut(attempt: first)
        #expect(!stale, "a stale deadline")
        #expect(machine.status == .connecting)
        let givenUp = machine.connectTimedOut(attempt: second)
        #expect(givenUp)
        #expect(machine.status == .notConnected)
        let again = machine.connectTimedOut(attempt: second)
        #expect(!again, "once")
        let late = machine.received(SocketPacket(kind: .connect, namespace: "/chat", data: ["sid": "s"]))
        #expect(late == .withdraw)
        let later = machine.received(SocketPacket(kind: .connect, namespace: "/chat", data: ["sid": "s"]))
        #expect(later == .none, "left once")

        var answered = connecting("/chat")
        _ = answered.engineOpened(version: .v5, sid: "e1")
        let attempt = answered.connectSent()
        _ = answered.received(SocketPacket(kind: .connect, namespace: "/chat", data: ["sid": "s"]))
        let afterAnswer = answered.connectTimedOut(attempt: attempt)
        #expect(!afterAnswer, "answered in time")
        #expect(answered.isConnected)
    }

    /// An auth provider that fails gives up its own CONNECT only: one from an attempt given up
    /// before (its provider finishing late) leaves the next attempt connecting.
    @Test func onlyTheAwaitedConnectsAuthProviderFailureGivesItUp() {
        var machine = connecting("/chat")
        _ = machine.engineOpened(version: .v5, sid: "e1")
        let first = machine.connectSent()
        let givenUp = machine.connectTimedOut(attempt: first)
        #expect(givenUp)
        _ = machine.connect(engineOpen: true, sid: "e1")
        let second = machine.connectSent()
        #expect(!machine.awaitsConnect(first))
        let stale = machine.authProviderFailed(attempt: first)
        #expect(!stale, "a stale provider")
        #expect(machine.status == .connecting)
        let failed = machine.authProviderFailed(attempt: second)
        #expect(failed)
        #expect(machine.status == .notConnected)
        let again = machine.authProviderFailed(attempt: second)
        #expect(!again, "once")
    }

    /// A server that sends events to a namespace and never accepts it: past the limit the
    /// connect is given up (held without end before), and an accept that comes after all is left.
    @Test func earlyEventsPastTheLimitGiveTheConnectUp() {
        var machine = SocketStateMachine(namespace: "/chat", version: .v5, sendBufferLimit: 3)
        machine.earlyEventLimit = 2
        _ = machine.connect(engineOpen: false)
        _ = machine.engineOpened(version: .v5, sid: "e1")
        _ = machine.connectSent()
        #expect(machine.received(.event("a", [], namespace: "/chat")) == .none)
        #expect(machine.received(.event("b", [], namespace: "/chat")) == .none)
        #expect(machine.received(.event("c", [], namespace: "/chat")) == .connectFailed(.connectionFailed(
            "the server sent more than 2 events to namespace /chat without accepting its CONNECT")))
        #expect(machine.status == .notConnected)
        #expect(machine.state == .idle, "the held events are let go")
        #expect(machine.received(SocketPacket(kind: .connect, namespace: "/chat", data: ["sid": "s"])) == .withdraw)
    }

    @Test func earlyEventsAndBufferedEmitsAreReleasedOnTheConnectReply() {
        var machine = connecting()
        let early = SocketPacket.event("welcome", ["hi"])
        #expect(machine.received(early) == .none)
        #expect(machine.emit(.event("a", [])) == .buffered)
        #expect(machine.emit(.event("b", [])) == .buffered)
        let reply = SocketPacket(kind: .connect, data: ["sid": "s1"])
        #expect(machine.received(reply) == .connected(id: "s1", early: [early], flush: [.event("a", []), .event("b", [])]))
        #expect(machine.status == .connected(id: "s1"))
        #expect(machine.emit(.event("c", [])) == .buffered, "behind the flush being written")
        #expect(machine.flushed() == [.event("c", [])])
        #expect(machine.flushed() == [], "the flush is over")
        #expect(machine.emit(.event("d", [])) == .send(.event("d", [])))
        #expect(machine.received(early) == .deliverEvent(early))
    }

    /// A flush whose write found no connection (the engine closing as the CONNECT reply came)
    /// is kept, in front of what was emitted meanwhile, for the next connect; before, it was
    /// dropped, and emits without an ack were lost without a word.
    @Test func aFlushThatFoundNoConnectionWaitsForTheNextConnect() {
        var machine = SocketStateMachine(namespace: "/", version: .v5, sendBufferLimit: 5, reconnects: true)
        _ = machine.connect(engineOpen: false)
        _ = machine.emit(.event("a", []))
        guard case .connected(_, _, let flush) = machine.received(SocketPacket(kind: .connect, data: ["sid": "s1"])) else {
            Issue.record("not connected")
            return
        }
        #expect(machine.emit(.event("b", [])) == .buffered)
        machine.flushFailed(flush)
        _ = machine.engineClosed(.transportClose)
        #expect(machine.sendBuffer == [.event("a", []), .event("b", [])])
        _ = machine.connect(engineOpen: true, sid: "e2")
        #expect(machine.received(SocketPacket(kind: .connect, data: ["sid": "s2"])) == .connected(id: "s2", early: [], flush: [.event("a", []), .event("b", [])]))
    }

    /// The connection went away between two batches of a flush: the rest waits for the next.
    @Test func aFlushEndsWhenTheConnectionWentAway() {
        var machine = SocketStateMachine(namespace: "/", version: .v5, sendBufferLimit: 5, reconnects: true)
        _ = machine.connect(engineOpen: false)
        _ = machine.emit(.event("a", []))
        _ = machine.received(SocketPacket(kind: .connect, data: ["sid": "s1"]))
        #expect(machine.emit(.event("b", [])) == .buffered)
        _ = machine.engineClosed(.transportClose)
        #expect(machine.flushed() == [])
        #expect(machine.sendBuffer == [.event("b", [])])
    }

    @Test func theSendBufferIsBoundedAndRefusesPastItsLimit() {
        var machine = connecting(limit: 2)
        #expect(machine.emit(.event("a", [])) == .buffered)
        #expect(machine.emit(.event("b", [])) == .buffered)
        #expect(machine.emit(.event("c", [])) == .refuse)
        #expect(machine.drainSendBuffer().count == 2)
    }

    @Test func aTimedOutBufferedEmitIsRemoved() {
        var machine = connecting()
        _ = machine.emit(.event("a", [], id: 0))
        _ = machine.emit(.event("b", [], id: 1))
        machine.removeBuffered(ackID: 0)
        #expect(machine.sendBuffer == [.event("b", [], id: 1)])
    }

    @Test(arguments: [
        (JSONValue?.some(["message": "Not authorized"]), SocketIOError.connectError(message: "Not authorized", data: nil)),
        (.some(["message": "m", "data": ["code": 42]]), .connectError(message: "m", data: ["code": 42])),
        (.some("Unable to connect"), .connectError(message: "Unable to connect", data: nil)),
        (nil, .connectError(message: "connection refused", data: nil)),
    ])
    func connectErrorPayloadsOfEveryServerBecomeOneError(_ payload: JSONValue?, _ expected: SocketIOError) {
        var machine = connecting()
        #expect(machine.received(SocketPacket(kind: .connectError, data: payload)) == .connectFailed(expected))
        #expect(machine.status == .notConnected)
        #expect(!machine.isActive, "a refused namespace does not retry on its own")
    }

    @Test func aV5ConnectReplyWithoutSidIsRefused() {
        var machine = connecting()
        guard case .connectFailed(.connectError) = machine.received(SocketPacket(kind: .connect)) else {
            Issue.record("expected a connect error")
            return
        }
    }

    @Test func acksResolveAndServerDisconnectEnds() {
        var machine = connecting()
        _ = machine.received(SocketPacket(kind: .connect, data: ["sid": "s"]))
        #expect(machine.makeAckID() == 0)
        #expect(machine.makeAckID() == 1)
        #expect(machine.received(.ack(["ok"], id: 1)) == .resolveAck(id: 1, items: ["ok"]))
        #expect(machine.received(SocketPacket(kind: .disconnect)) == .disconnected(.ioServerDisconnect))
        #expect(machine.received(.event("late", [])) == .none)
    }

    @Test func disconnectAndEngineCloseReportTheRightReason() {
        var connected = connecting()
        _ = connected.received(SocketPacket(kind: .connect, data: ["sid": "s"]))
        #expect(connected.engineClosed(.pingTimeout) == .disconnected(.pingTimeout, sendDisconnect: false, wasConnected: true))
        #expect(connected.engineClosed(.transportClose) == .none)

        var waiting = connecting()
        #expect(waiting.engineClosed(.transportError("refused")) == .disconnected(.transportError("refused"), sendDisconnect: false, wasConnected: false))

        var app = connecting()
        _ = app.received(SocketPacket(kind: .connect, data: ["sid": "s"]))
        #expect(app.disconnect() == .disconnected(.ioClientDisconnect, sendDisconnect: true, wasConnected: true))
        #expect(app.disconnect() == .none)
        #expect(app.connect(engineOpen: true) == .sendConnect, "the app may connect again")
    }
}

@Suite struct RecoveryOffsetTests {
    func connected(pid: String?) -> SocketStateMachine {
        var machine = SocketStateMachine(namespace: "/", version: .v5, sendBufferLimit: 10)
        _ = machine.connect(engineOpen: true)
        var reply: JSONObject = ["sid": "s1"]
        if let pid { reply["pid"] = .string(pid) }
        _ = machine.received(SocketPacket(kind: .connect, data: .object(reply)))
        return machine
    }

    @Test func theOffsetIsStrippedAndRememberedWhenAPidIsKnown() {
        var machine = connected(pid: "p1")
        #expect(machine.received(.event("tick", [1, "MKpRwxT.0"])) == .deliverEvent(.event("tick", [1])))
        #expect(machine.recovery?.pid == "p1")
        #expect(machine.recovery?.offset == "MKpRwxT.0")
    }

    @Test func nothingIsStrippedWithoutAPidOrFromAnEventThatAsksForAnAck() {
        var plain = connected(pid: nil)
        #expect(plain.received(.event("chat", ["hello", "world"])) == .deliverEvent(.event("chat", ["hello", "world"])))
        var recovering = connected(pid: "p1")
        let asking = SocketPacket.event("question", ["a", "b"], id: 4)
        #expect(recovering.received(asking) == .deliverEvent(asking), "acked events carry no offset")
        #expect(recovering.received(.event("only-name", ["x"])) == .deliverEvent(.event("only-name", [])),
                "the single trailing string is the offset")
    }

    @Test func eventsReplayedBeforeTheConnectReplyLoseTheirOffsetsToo() {
        var machine = SocketStateMachine(namespace: "/", version: .v5, sendBufferLimit: 10)
        _ = machine.connect(engineOpen: true)
        _ = machine.received(.event("missed", [1, "o1"]))
        _ = machine.received(.event("missed", [2, "o2"]))
        let action = machine.received(SocketPacket(kind: .connect, data: ["sid": "s1", "pid": "p1"]))
        #expect(action == .connected(id: "s1", early: [.event("missed", [1]), .event("missed", [2])], flush: []))
        #expect(machine.recovery?.offset == "o2")
    }
}

@Suite struct RecoveryHandshakeTests {
    @Test func aReconnectAsksForRecoveryAndReportsWhetherItHappened() {
        var machine = SocketStateMachine(namespace: "/", version: .v5, sendBufferLimit: 10)
        _ = machine.connect(engineOpen: true)
        #expect(machine.recoveryFields().isEmpty, "nothing to recover on the first connection")
        _ = machine.received(SocketPacket(kind: .connect, data: ["sid": "s1", "pid": "p1"]))
        #expect(!machine.recovered)
        #expect(machine.recoveryFields() == ["pid": "p1"], "no offset before the first event")
        _ = machine.received(.event("tick", [1, "o1"]))
        _ = machine.engineClosed(.transportClose)

        _ = machine.connect(engineOpen: true)
        #expect(machine.recoveryFields() == ["pid": "p1", "offset": "o1"])
        _ = machine.received(SocketPacket(kind: .connect, data: ["sid": "s1", "pid": "p1"]))
        #expect(machine.recovered)

        _ = machine.engineClosed(.transportClose)
        _ = machine.connect(engineOpen: true)
        _ = machine.recoveryFields()
        _ = machine.received(SocketPacket(kind: .connect, data: ["sid": "s2", "pid": "p2"]))
        #expect(!machine.recovered, "a new pid means a new session")
    }

    @Test func protocolV4NeverAsksForRecovery() {
        var machine = SocketStateMachine(namespace: "/chat", version: .v4, sendBufferLimit: 10)
        _ = machine.connect(engineOpen: true)
        #expect(machine.recoveryFields().isEmpty)
    }
}
