import Testing

@testable import SocketIOPostgres

@Suite("Listening connection state machine")
struct ListenerStateMachineTests {
    /// A stand-in for a connection.
    struct Connection: Equatable { let name: String }

    @Test("subscribing while listening sends LISTEN once per namespace")
    func subscribe() {
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        guard case .listen(Connection(name: "a"), 0) = machine.subscribe("/") else {
            Issue.record("expected LISTEN on a")
            return
        }
        guard case .alreadySubscribed = machine.subscribe("/") else {
            Issue.record("expected nothing for a second subscribe")
            return
        }
        #expect(machine.namespaces == ["/"])
    }

    @Test("a lost connection reconnects; the new one listens on every namespace, in order")
    func reconnect() {
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        _ = machine.subscribe("/")
        _ = machine.subscribe("/chat")
        guard case .reconnect = machine.connectionLost(generation: 0, at: .now) else {
            Issue.record("expected a reconnection")
            return
        }
        #expect(machine.isReconnecting)
        guard case .waitForConnection = machine.subscribe("/admin") else {
            Issue.record("a namespace subscribed while reconnecting waits for the connection")
            return
        }
        guard case .listen(Connection(name: "b"), 1, let namespaces, _) = machine.connected(Connection(name: "b")) else {
            Issue.record("expected LISTENs on b")
            return
        }
        #expect(namespaces == ["/", "/chat", "/admin"])
        #expect(!machine.isReconnecting)
    }

    @Test("news of an older connection's loss changes nothing")
    func staleLoss() {
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        _ = machine.connectionLost(generation: 0, at: .now)
        _ = machine.connected(Connection(name: "b"))
        guard case .none = machine.connectionLost(generation: 0, at: .now) else {
            Issue.record("generation 0 is gone")
            return
        }
        guard case .reconnect = machine.connectionLost(generation: 1, at: .now) else {
            Issue.record("generation 1 is current")
            return
        }
    }

    @Test("after shutdown: the connection is closed once, subscribe fails, a late connection is closed")
    func shutdown() {
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        let first = machine.shutdown()
        let second = machine.shutdown()
        #expect(first == Connection(name: "a"))
        #expect(second == nil)
        #expect(machine.isClosed)
        guard case .closed = machine.subscribe("/") else {
            Issue.record("subscribe after shutdown")
            return
        }
        guard case .none = machine.connectionLost(generation: 0, at: .now) else {
            Issue.record("no reconnection after shutdown")
            return
        }
        guard case .close(Connection(name: "b")) = machine.connected(Connection(name: "b")) else {
            Issue.record("a connection made during shutdown is closed")
            return
        }
    }

    @Test("reconnection delays: socket.io's 1–3 s, uniform in the draw")
    func delays() {
        let range = Duration.seconds(1) ... Duration.seconds(3)
        #expect(ReconnectDelay.delay(in: range, draw: 0) == .seconds(1))
        #expect(ReconnectDelay.delay(in: range, draw: 0.5) == .seconds(2))
        #expect(ReconnectDelay.delay(in: range, draw: 1) == .seconds(3))
        #expect(ReconnectDelay.delay(in: range, draw: 7) == .seconds(3))
    }

    @Test("a LISTEN refused on the current connection forgets the namespace: a retried subscribe listens again")
    func listenRefused() {
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        guard case .listen(_, let generation) = machine.subscribe("/chat") else {
            Issue.record("expected LISTEN on a")
            return
        }
        machine.listenFailed("/chat", generation: generation)
        #expect(machine.namespaces.isEmpty)
        guard case .listen(Connection(name: "a"), 0) = machine.subscribe("/chat") else {
            Issue.record("the retry must send LISTEN, not report it subscribed")
            return
        }
    }

    @Test("a LISTEN that failed because its connection was lost keeps the namespace: the next connection listens on it")
    func listenLostWithItsConnection() {
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        _ = machine.subscribe("/")
        guard case .listen(_, let generation) = machine.subscribe("/chat") else {
            Issue.record("expected LISTEN on a")
            return
        }
        _ = machine.connectionLost(generation: generation, at: .now)
        machine.listenFailed("/chat", generation: generation)
        guard case .listen(_, _, let namespaces, _) = machine.connected(Connection(name: "b")) else {
            Issue.record("expected LISTENs on b")
            return
        }
        #expect(namespaces == ["/", "/chat"])
        // Reconnected before the failure was told: still listened to on b.
        machine.listenFailed("/chat", generation: generation)
        #expect(machine.namespaces == ["/", "/chat"])
    }

    /// The catch-up start `machine` gives the connection it gets now.
    static func catchUpFrom(_ machine: inout ListenerStateMachine<Connection>, _ name: String) -> ContinuousClock.Instant?? {
        guard case .listen(_, _, _, let since) = machine.connected(Connection(name: name)) else { return nil }
        return .some(since)
    }

    @Test("lost again before every namespace caught up: the next catch-up still reaches back to the first loss; once all caught up, to the next loss only")
    func catchUpAcrossAFlap() {
        let start = ContinuousClock.now
        let (first, second, third) = (start + .seconds(10), start + .seconds(20), start + .seconds(30))
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        _ = machine.subscribe("/")
        _ = machine.subscribe("/chat")
        #expect(Self.catchUpFrom(&machine, "x") == nil)  // listening: a connection now is closed
        _ = machine.connectionLost(generation: 0, at: first)
        #expect(Self.catchUpFrom(&machine, "b") == .some(first))
        machine.caughtUp("/", generation: 1)  // "/chat" is still reading when b goes
        _ = machine.connectionLost(generation: 1, at: second)
        #expect(Self.catchUpFrom(&machine, "c") == .some(first))
        machine.caughtUp("/", generation: 1)  // old news: changes nothing
        machine.caughtUp("/", generation: 2)
        machine.caughtUp("/chat", generation: 2)
        _ = machine.connectionLost(generation: 2, at: third)
        #expect(Self.catchUpFrom(&machine, "d") == .some(third))
    }

    @Test("a reconnection without namespaces has nothing to catch up and leaves nothing pending: the next loss is the start")
    func catchUpWithoutNamespaces() {
        let start = ContinuousClock.now
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        _ = machine.connectionLost(generation: 0, at: start)
        #expect(Self.catchUpFrom(&machine, "b") == .some(nil))  // no namespace to read for
        _ = machine.subscribe("/")
        _ = machine.connectionLost(generation: 1, at: start + .seconds(5))
        #expect(Self.catchUpFrom(&machine, "c") == .some(start + .seconds(5)))
    }
}
