import Testing

@testable import SocketIOPostgres

/// The query connection's attempts, waiter by waiter, without a database: connections and
/// attempts are names.
@Suite("Query connection state")
struct QueryConnectionStateTests {
    typealias State = QueryConnectionState<String, String>

    static func open(_: String) -> Bool { true }

    /// A start that must not happen.
    static func noStart() -> String {
        Issue.record("a connection attempt started")
        return "unexpected"
    }

    @Test("queries share the attempt under way, then the connection it gave")
    func shared() {
        var state = State()
        guard case .wait("A", let a) = state.acquire(isOpen: Self.open, start: { "A" }) else { Issue.record("expected attempt A"); return }
        guard case .wait("A", a) = state.acquire(isOpen: Self.open, start: Self.noStart) else { Issue.record("expected A shared"); return }
        let first = state.connected("a", attempt: a)
        let second = state.connected("a", attempt: a)  // its second waiter
        #expect(first == .use && second == .use)
        guard case .use("a") = state.acquire(isOpen: Self.open, start: Self.noStart) else { Issue.record("expected connection a"); return }
        // Found closed: a new attempt.
        guard case .wait("B", _) = state.acquire(isOpen: { _ in false }, start: { "B" }) else { Issue.record("expected attempt B"); return }
    }

    @Test("the second waiter of a failed attempt, resuming after a newer attempt started, leaves that attempt alone")
    func lateFailure() {
        var state = State()
        guard case .wait("A", let a) = state.acquire(isOpen: Self.open, start: { "A" }) else { Issue.record("expected attempt A"); return }
        _ = state.acquire(isOpen: Self.open, start: Self.noStart)  // a second waiter of A
        state.failed(attempt: a)  // the first waiter resumes
        guard case .wait("B", let b) = state.acquire(isOpen: Self.open, start: { "B" }) else { Issue.record("expected attempt B"); return }
        state.failed(attempt: a)  // the second waiter of A resumes, late
        // B is still the attempt under way: no third one, whose connection would replace B's.
        guard case .wait("B", b) = state.acquire(isOpen: Self.open, start: { "C" }) else { Issue.record("expected B shared, not a new attempt"); return }
        let told = state.connected("b", attempt: b)
        #expect(told == .use)
        guard case .use("b") = state.acquire(isOpen: Self.open, start: Self.noStart) else { Issue.record("expected connection b"); return }
    }

    @Test("a late waiter of an old attempt does not put its connection back over a newer attempt")
    func lateSuccess() {
        var state = State()
        guard case .wait("A", let a) = state.acquire(isOpen: Self.open, start: { "A" }) else { Issue.record("expected attempt A"); return }
        let first = state.connected("a", attempt: a)
        guard case .wait("B", let b) = state.acquire(isOpen: { _ in false }, start: { "B" }) else { Issue.record("expected attempt B"); return }
        let late = state.connected("a", attempt: a)  // A's late waiter
        #expect(first == .use && late == .use)
        guard case .wait("B", b) = state.acquire(isOpen: Self.open, start: Self.noStart) else { Issue.record("expected B still under way"); return }
    }

    @Test("closing: the attempt under way is closed once it connects; its waiters close theirs; later queries fail")
    func close() {
        var state = State()
        guard case .wait("A", let a) = state.acquire(isOpen: Self.open, start: { "A" }) else { Issue.record("expected attempt A"); return }
        guard case .closeWhenConnected("A") = state.close() else { Issue.record("expected A closed when connected"); return }
        let told = state.connected("a", attempt: a)
        #expect(told == .close)
        guard case .closed = state.acquire(isOpen: Self.open, start: Self.noStart) else { Issue.record("expected closed"); return }
        guard case .none = state.close() else { Issue.record("a second close closes nothing"); return }
    }
}
