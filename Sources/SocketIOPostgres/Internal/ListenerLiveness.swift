/// Whether the listening connection is still alive: a path to PostgreSQL that went silent (a
/// partition, a stalled proxy, a hung server: no RST, no FIN) never closes the connection, so
/// without a check it just stops hearing notifications.
///
/// The connection is probed (``Action/probe(answerBy:)``: a `SELECT 1` on it) every
/// ``interval`` after it was last heard from; once nothing has been heard for ``timeout`` it is
/// silent (``Action/silent``), and the owner closes it, which starts the reconnection and its
/// journal catch-up. With the defaults (5 s, 10 s):
///
/// | time   | heard      | action                       |
/// |--------|------------|------------------------------|
/// | 0 s    | connected  | wait until 5 s               |
/// | 5 s    |            | probe, answer by 10 s        |
/// | 5.1 s  | the answer | wait until 10.1 s            |
/// | 10.1 s |            | probe, answer by 15.1 s      |
/// | 15.1 s | nothing    | silent: close the connection |
///
/// Times are offsets on the owner's timeline, passed in: no clock reads here.
struct ListenerLiveness: Sendable {
    private enum State: Sendable {
        /// Last heard from at `lastHeard`, no probe out; next: `probing`, `silent`.
        case waiting(lastHeard: Duration)
        /// A probe is out, sent after `lastHeard`; next: `waiting` (answered), `silent`.
        case probing(lastHeard: Duration)
        /// Nothing heard for ``timeout``; final.
        case silent
    }

    /// How long after it was last heard from the connection is probed.
    let interval: Duration
    /// How long without hearing anything the connection is declared silent.
    let timeout: Duration
    private var state: State

    /// A connection that was just opened (its login answered) at `now`.
    init(interval: Duration, timeout: Duration, openedAt now: Duration) {
        self.interval = interval
        self.timeout = timeout
        state = .waiting(lastHeard: now)
    }

    enum Action: Sendable, Hashable {
        /// Nothing to do before this instant: check again then.
        case wait(until: Duration)
        /// Send a probe; it must be answered by this instant (report the answer with
        /// ``heard(at:)``, then check again).
        case probe(answerBy: Duration)
        /// Nothing heard for ``timeout``: close the connection (told once).
        case silent
        /// Declared silent already: nothing more to do.
        case stop
    }

    /// What to do at `now`.
    mutating func check(at now: Duration) -> Action {
        switch state {
        case .waiting(let lastHeard):
            if now >= lastHeard + timeout { return declareSilent() }
            guard now >= lastHeard + interval else { return .wait(until: lastHeard + interval) }
            state = .probing(lastHeard: lastHeard)
            return .probe(answerBy: lastHeard + timeout)
        case .probing(let lastHeard):
            if now >= lastHeard + timeout { return declareSilent() }
            return .wait(until: lastHeard + timeout)
        case .silent:
            return .stop
        }
    }

    /// The connection answered at `now` (a probe's reply): it is alive.
    mutating func heard(at now: Duration) {
        switch state {
        case .waiting(let lastHeard), .probing(let lastHeard):
            state = .waiting(lastHeard: max(lastHeard, now))
        case .silent:
            return
        }
    }

    private mutating func declareSilent() -> Action {
        state = .silent
        return .silent
    }
}
