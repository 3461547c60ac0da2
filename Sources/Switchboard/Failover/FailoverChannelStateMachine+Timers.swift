import SocketIOProtocol
import SwitchboardCore

/// Timers and the network path: the time-based rules.
extension FailoverChannelStateMachine {
    /// `timer` fired at `now`.
    mutating func timerFired(_ timer: FailoverChannel.Timer, now: Duration) -> Action {
        switch timer {
        case .ackDelay:
            ackTimerRunning = false
            guard connected != nil, let seq = ledger.ackDue() else { return Action() }
            return Action(write: enqueue([.ack(seq: seq)]))
        case .resumeDeadline(let generation, let timeout):
            return Action(resume: failResume(generation, ConnectionError.connectFailed("no resumed within \(timeout)")))
        case .tick:
            return tick(now: now)
        }
    }

    /// A link that stalls — open, no bytes either way, no close — shows as a message left
    /// unacknowledged (the peer acknowledges within its ack delay): resume elsewhere. Otherwise
    /// the policy's time-based rules run.
    private mutating func tick(now: Duration) -> Action {
        guard let connected, let current = transport else { return Action() }
        if ledger.stalled(now: now, timeout: ackTimeout) {
            return linkLost(connected.generation, reason: "no acknowledgement within \(ackTimeout)", stalled: true, now: now)
        }
        guard case .switchTo(let next, let reason) = policy.tick(current: current, now: now), next != current else { return Action() }
        var action = requestSwitch(to: next, reason: reason)
        action.note = .switching(to: next, reason: reason)
        return action
    }

    /// The network path changed (not its first report): the policy hears of it, even between
    /// links, and may want the other transport.
    mutating func pathChanged(_ path: NetworkPath, now: Duration) -> Action {
        guard let current = transport,
              case .switchTo(let target, let reason) = policy.observe(.pathChanged(path), current: current, now: now)
        else { return Action() }
        return requestSwitch(to: target, reason: reason)
    }
}
