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
        guard case .reconnect = machine.connectionLost(generation: 0) else {
            Issue.record("expected a reconnection")
            return
        }
        #expect(machine.isReconnecting)
        guard case .waitForConnection = machine.subscribe("/admin") else {
            Issue.record("a namespace subscribed while reconnecting waits for the connection")
            return
        }
        guard case .listen(Connection(name: "b"), 1, let namespaces) = machine.connected(Connection(name: "b")) else {
            Issue.record("expected LISTENs on b")
            return
        }
        #expect(namespaces == ["/", "/chat", "/admin"])
        #expect(!machine.isReconnecting)
    }

    @Test("news of an older connection's loss changes nothing")
    func staleLoss() {
        var machine = ListenerStateMachine(connection: Connection(name: "a"))
        _ = machine.connectionLost(generation: 0)
        _ = machine.connected(Connection(name: "b"))
        guard case .none = machine.connectionLost(generation: 0) else {
            Issue.record("generation 0 is gone")
            return
        }
        guard case .reconnect = machine.connectionLost(generation: 1) else {
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
        guard case .none = machine.connectionLost(generation: 0) else {
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
        _ = machine.connectionLost(generation: generation)
        machine.listenFailed("/chat", generation: generation)
        guard case .listen(_, _, let namespaces) = machine.connected(Connection(name: "b")) else {
            Issue.record("expected LISTENs on b")
            return
        }
        #expect(namespaces == ["/", "/chat"])
        // Reconnected before the failure was told: still listened to on b.
        machine.listenFailed("/chat", generation: generation)
        #expect(machine.namespaces == ["/", "/chat"])
    }
}
