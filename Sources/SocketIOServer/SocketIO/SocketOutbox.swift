import NIOConcurrencyHelpers
import SwitchboardCore

/// Where one socket's outgoing packets go: its Engine.IO session while connected, only its
/// recovery log while away.
///
/// The outbox outlives a dropped connection when recovery is on: the namespace keeps it in the
/// socket's rooms, broadcasts keep landing in its log, and a recovering client gets the same
/// outbox back with everything it missed. Logging a packet and queuing it on the session happen
/// under one lock, so the log's order is the wire's order and a restore (which snapshots the
/// log and reattaches under the same lock) neither loses nor repeats a packet; the writing
/// starts after the lock is released (``SendFollowUp``).
final class SocketOutbox: Sendable {
    private enum Phase {
        /// Joined the namespace, CONNECT reply not written yet: packets wait behind it.
        case joining(EngineSession, held: [[EngineFrame]])
        case open(EngineSession)
        /// Disconnected, kept for recovery: packets are only logged.
        case away
        case closed
    }

    private struct State {
        var phase: Phase
        var log: PacketLog?
    }

    private let state: NIOLockedValueBox<State>
    private let clock: Timeline

    /// An outbox for a new socket: it holds what is delivered until ``open(reply:)`` writes the
    /// CONNECT reply, so the socket can join its namespace first (no broadcast misses a client
    /// that has seen the reply) and still see the reply first.
    /// Whether events for this socket carry recovery offsets (a protocol v4 socket never does,
    /// even on a server with recovery: its client would take the offset for an argument).
    let takesOffsets: Bool

    init(session: EngineSession, log: PacketLog?, clock: Timeline) {
        self.takesOffsets = log != nil
        self.state = NIOLockedValueBox(State(phase: .joining(session, held: []), log: log))
        self.clock = clock
    }

    /// Writes the CONNECT reply, then what was delivered since the socket joined.
    func open(reply: [EngineFrame]) {
        open(replaying: [], reply: reply)
    }

    /// Writes `replayed` (events a recovering client missed, read back from the cluster's
    /// journal, logged under their offsets), then the CONNECT reply, then what was delivered
    /// since the socket joined.
    func open(replaying replayed: [(offset: String, frames: [EngineFrame])], reply: [EngineFrame]) {
        let followUp = state.withLockedValue { state -> SendFollowUp? in
            guard case .joining(let session, let held) = state.phase else { return nil }
            let now = clock.now()
            // Logged before what was held (logged when it was delivered): the wire's order.
            state.log?.prepend(replayed, now: now)
            state.phase = .open(session)
            return session.enqueue(replayed.flatMap(\.frames) + reply + held.flatMap { $0 }).followUp
        }
        followUp?.perform()
    }

    /// Sends frames (logging them under `offset` when recovery is on). Returns `false` when
    /// nothing was sent (away or closed; a logged packet still reaches a recovering client).
    @discardableResult
    func deliver(_ frames: [EngineFrame], offset: String?) -> Bool {
        let (sent, followUp) = queue(frames, offset: offset)
        followUp?.perform()
        return sent
    }

    /// Queues frames like ``deliver(_:offset:)`` and hands back the writing to start, for a
    /// caller that must not write where it is (under the delivery order's lock).
    func queue(_ frames: [EngineFrame], offset: String?) -> (sent: Bool, followUp: SendFollowUp?) {
        state.withLockedValue { state -> (Bool, SendFollowUp?) in
            if let offset, state.log != nil {
                state.log?.append(offset: offset, frames: frames, now: clock.now())
            }
            switch state.phase {
            case .joining(let session, var held):
                held.append(frames)
                state.phase = .joining(session, held: held)
                return (true, nil)
            case .open(let session): return session.enqueue(frames)
            case .away, .closed: return (false, nil)
            }
        }
    }

    /// The connection dropped and the session is kept for recovery.
    func goAway() {
        state.withLockedValue { state in
            switch state.phase {
            case .open, .joining: state.phase = .away
            case .away, .closed: return
            }
        }
    }

    /// The socket is gone for good.
    func close() {
        state.withLockedValue { state in
            state.phase = .closed
            state.log = nil
        }
    }

    /// Reattaches a recovered socket to `session`: sends every logged packet after `offset`
    /// (every one without it), then `reply` (the CONNECT reply), all before anything emitted
    /// afterwards. Returns ``Restore/offsetNotKept`` (changing nothing) when the log no longer
    /// reaches back to `offset`.
    func restore(on session: EngineSession, after offset: String?, reply: [EngineFrame], maxBytes: Int) -> Restore {
        let (restore, followUp) = state.withLockedValue { state -> (Restore, SendFollowUp?) in
            guard case .away = state.phase, let missed = state.log?.frames(after: offset) else { return (.offsetNotKept, nil) }
            let bytes = missed.reduce(0) { $0 + $1.size }
            // Sent at once, it would overflow the new connection's queue, which closes it; the
            // client would come back with the same offset and overflow again, for ever.
            guard bytes <= maxBytes else { return (.tooLarge(bytes: bytes), nil) }
            state.phase = .open(session)
            return (.restored, session.enqueue(missed + reply).followUp)
        }
        followUp?.perform()
        return restore
    }

    /// What ``restore(on:after:reply:maxBytes:)`` did.
    enum Restore: Equatable {
        case restored
        /// The log no longer holds the offset (or the session is not away).
        case offsetNotKept
        /// The missed events take more than the bytes that may wait for one client.
        case tooLarge(bytes: Int)
    }
}
