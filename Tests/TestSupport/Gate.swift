import NIOConcurrencyHelpers

/// A gate tasks wait at until it opens, deaf to cancellation (what a stuck database query or a
/// held consumer looks like): ``wait()`` returns at once while open, ``close()`` makes later
/// callers wait again.
public final class Gate: Sendable {
    private struct State {
        var open: Bool
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: NIOLockedValueBox<State>

    public init(open: Bool = false) {
        state = NIOLockedValueBox(State(open: open))
    }

    /// Whether the gate is open now.
    public var isOpen: Bool { state.withLockedValue { $0.open } }

    /// How many tasks wait now.
    public var waiting: Int { state.withLockedValue { $0.waiters.count } }

    /// Returns once the gate is open.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLockedValue { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    /// Lets every waiting task go on, and later ones pass.
    public func open() {
        let waiters = state.withLockedValue { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Later callers of ``wait()`` wait again.
    public func close() {
        state.withLockedValue { $0.open = false }
    }
}
