/// ``QueryConnection``'s one connection as a value: none yet, a connection attempt that
/// concurrent queries share, the connection, or closed.
///
/// Each attempt has a number, and news of an attempt (its waiters resuming, one after another,
/// possibly after a newer attempt started) changes the state only while that attempt is still
/// the current one: a late waiter of a failed attempt does not reset a newer one to `idle` (a
/// third attempt then replaced the second, whose connection was never closed), nor does a late
/// waiter of an old success put back a connection that was replaced.
///
/// Generic over the connection and the attempt (a task in production) so its tests need no
/// database.
struct QueryConnectionState<Connection, Attempt> {
    private enum State {
        /// No connection; the next query starts an attempt. Next: `connecting`, `closed`.
        case idle
        /// Attempt `number` is under way. Next: `connected` (it succeeded), `idle` (it failed),
        /// `closed`.
        case connecting(Attempt, number: Int)
        /// Next: `connecting` (once it is found closed), `closed`.
        case connected(Connection)
        /// Final.
        case closed
    }

    private var state: State = .idle
    /// The number of the last attempt started.
    private var attempts = 0

    enum Acquire {
        /// Run the query on this connection.
        case use(Connection)
        /// Await attempt `number` (started now, or shared), then report how it went with
        /// ``connected(_:attempt:)`` or ``failed(attempt:)``.
        case wait(Attempt, number: Int)
        /// Closed: fail the query.
        case closed
    }

    /// A query needs the connection: the open one, else the attempt under way, else a new one
    /// made by `start`. `isOpen` says whether the connection held is still usable.
    mutating func acquire(isOpen: (Connection) -> Bool, start: () -> Attempt) -> Acquire {
        switch state {
        case .connected(let connection) where isOpen(connection):
            return .use(connection)
        case .connecting(let attempt, let number):
            return .wait(attempt, number: number)
        case .idle, .connected:
            attempts += 1
            let attempt = start()
            state = .connecting(attempt, number: attempts)
            return .wait(attempt, number: attempts)
        case .closed:
            return .closed
        }
    }

    enum Connected: Equatable {
        /// Run the query on the connection.
        case use
        /// Closed meanwhile: close the connection and fail the query.
        case close
    }

    /// Attempt `number` gave `connection` (told by each of its waiters).
    mutating func connected(_ connection: Connection, attempt number: Int) -> Connected {
        switch state {
        case .closed:
            return .close
        case .connecting(_, let current) where current == number:
            state = .connected(connection)
            return .use
        case .idle, .connecting, .connected:
            // Already recorded by an earlier waiter, or replaced since: the query may still use
            // it (a connection replaced because it closed fails the query as any lost one does).
            return .use
        }
    }

    /// Attempt `number` failed (told by each of its waiters): the next query tries again,
    /// unless a newer attempt is under way already.
    mutating func failed(attempt number: Int) {
        if case .connecting(_, let current) = state, current == number { state = .idle }
    }

    enum Close {
        case none
        /// Close this connection.
        case close(Connection)
        /// Close the connection this attempt gives, if it gives one.
        case closeWhenConnected(Attempt)
    }

    /// Closes for good: later queries fail.
    mutating func close() -> Close {
        defer { state = .closed }
        switch state {
        case .connected(let connection): return .close(connection)
        case .connecting(let attempt, _): return .closeWhenConnected(attempt)
        case .idle, .closed: return .none
        }
    }
}
