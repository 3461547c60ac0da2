import SocketIOProtocol

/// Connect attempts, the resume handshake and what links report.
extension FailoverChannelStateMachine {
    // MARK: - Connect attempts

    /// A connect attempt starts (with a new channel first, when the server lost the old one):
    /// its generation, or `nil` once the channel is closed; earlier links' reports are stale from
    /// here on. A resume still waiting (a reconnection replaced meanwhile) is `displaced`: answer it.
    mutating func attemptStarting(newChannel: FailoverChannel.NewChannel?) -> (attempt: FailoverChannel.Attempt, displaced: Waiter?)? {
        guard case .active(let listener, let link) = state else { return nil }
        if let newChannel { ledger.startNewChannel(newChannel.id) }
        generation += 1
        state = .active(listener: listener, link: .connecting(generation: generation))
        let displaced: Waiter? = if case .resuming(_, _, _, let waiter) = link { waiter } else { nil }
        return (FailoverChannel.Attempt(generation: generation, channelID: ledger.channelID), displaced)
    }

    /// The link of attempt `generation` is open on `transport`: `waiter` waits for `resumed`,
    /// unless the channel closed (or moved on) meanwhile.
    mutating func resumeStarting(
        generation: Int, link: Link, transport: FailoverTransport, waiter: Waiter, newChannel: FailoverChannel.NewChannel?
    ) -> ResumeStart {
        guard case .active(let listener, .connecting(generation)) = state else { return .refuse(waiter) }
        if let newChannel { ledger.startNewChannel(newChannel.id) }
        state = .active(listener: listener, link: .resuming(generation: generation, link: link, transport: transport, waiter: waiter))
        return .send(ledger.resume())
    }

    /// Connect attempt `generation` on `target` failed with `error` (`observed`: the policy hears
    /// of it; not for the retry after the server lost the channel). After the last of
    /// `attempts`, a reconnection (`reportsLoss`) gives up and tells the connection above; a
    /// cancelled or stale one (closed, or another attempt began since) just stops.
    mutating func connectFailed(
        _ target: FailoverTransport, generation attemptGeneration: Int, attempt: Int, of attempts: Int, error: any Error,
        observed: Bool, reportsLoss: Bool, now: Duration
    ) -> RetryAction {
        guard !(error is CancellationError), attemptGeneration == generation else { return RetryAction(next: target, stop: true) }
        var action = RetryAction(next: target)
        var events: [FailoverEvent] = []
        if observed {
            if case .switchTo(let next, let reason) = policy.observe(.connectFailed(target), current: target, now: now) {
                events.append(.transportChanged(from: target, to: next, reason: reason))
                action.next = next
            } else if attempt % 2 == 0 {
                // The policy holds on; after two failures in a row try the other transport
                // anyway (where the policy allows it).
                let other: FailoverTransport = target == .webSocket ? .socketIO : .webSocket
                if policy.allows(other) { action.next = other }
            }
        }
        if attempt >= attempts {
            action.stop = true
            if reportsLoss {
                events.append(.gaveUp(reason: "\(error)"))
                var listener: Listener?
                if case .active(let current, let link) = state {
                    listener = current
                    state = .active(listener: nil, link: link)
                }
                action.reportLoss = (listener, "neither transport answered: \(error)")
            }
        }
        action.publish = events.isEmpty ? nil : FailoverChannel.Publication(events: events, observers: observers)
        return action
    }

    // MARK: - Link reports

    /// Link `generation` reported `event`.
    /// Room the server made in the window (an `ack`, or `resumed`) goes to the sends waiting for it.
    mutating func linkReported(_ event: FailoverLinkEvent, generation: Int, now: Duration) -> Action {
        var action: Action
        switch event {
        case .envelope(.success(let envelope)):
            action = received(envelope, generation: generation, now: now)
        case .envelope(.failure(let error)):
            action = linkLost(generation, reason: "the server sent a malformed envelope: \(error)", now: now)
        case .ended(let reason):
            action = linkLost(generation, reason: reason, now: now)
        }
        action.admit = ledger.admitWaiting()
        return action
    }

    private mutating func received(_ envelope: Envelope, generation: Int, now: Duration) -> Action {
        switch envelope {
        case .resumed(let channel, let received):
            return resumed(channel: channel, peerReceived: received, generation: generation, now: now)
        case .ack(let seq):
            return acknowledged(seq, generation: generation, now: now)
        case .error(let id?, let message):
            return Action(settle: (id, .failure(.driverFailed(message))))
        case .error(nil, let message):
            // Before `resumed`: the server refused the channel (expired, too many); otherwise it
            // closes the transport after this and the channel resumes elsewhere.
            var action = Action()
            action.note = .serverError(message)
            let error: any Error = message.hasPrefix(FailoverChannel.unknownChannelMessage)
                ? FailoverChannel.ChannelGone(message: message) : ConnectionError.connectFailed(message)
            action.resume = failResume(generation, error)
            return action
        case .event, .request, .reply:
            return deliver(envelope, generation: generation, now: now)
        case .resume:
            return linkLost(generation, reason: "the server sent resume", now: now)
        }
    }

    /// `resumed`: the link carries the channel; what the server missed goes out again.
    private mutating func resumed(channel: String, peerReceived: UInt64, generation: Int, now: Duration) -> Action {
        guard channel == ledger.channelID,
              case .active(let listener, .resuming(generation, let link, let target, let waiter)) = state else { return Action() }
        var action = Action()
        let previous = transport
        let resend: [Envelope]
        do throws(ReliableChannelError) {
            resend = try ledger.resumed(peerReceived: peerReceived, now: now)
        } catch {
            state = .active(listener: listener, link: .connecting(generation: generation))
            action.resume = (waiter, .failure(error))
            return action
        }
        transport = target  // only once resumed: a failed resume leaves the channel where it was
        state = .active(listener: listener, link: .connected(Connected(generation: generation, link: link)))
        action.write = enqueue(resend)
        _ = policy.observe(.connected(target), current: target, now: now)
        action.note = .resumed(target, resent: resend.count)
        if previous != target {
            action.publish = publishing(.transportChanged(from: previous, to: target, reason: previous == nil ? "opened" : "switched"))
        }
        action.resume = (waiter, .success(()))
        return action
    }

    private mutating func acknowledged(_ seq: UInt64, generation: Int, now: Duration) -> Action {
        guard let connected, connected.generation == generation, let current = transport else { return Action() }
        let roundTrip: Duration?
        do throws(ReliableChannelError) {
            roundTrip = try ledger.acknowledged(through: seq, now: now)
        } catch {
            return linkLost(generation, reason: "the server acknowledged what was never sent", now: now)
        }
        guard let roundTrip,
              case .switchTo(let next, let reason) = policy.observe(.roundTrip(roundTrip), current: current, now: now)
        else { return Action() }
        return requestSwitch(to: next, reason: reason)
    }

    private mutating func deliver(_ envelope: Envelope, generation: Int, now: Duration) -> Action {
        guard let seq = envelope.seq else { return linkLost(generation, reason: "a channel message without seq", now: now) }
        guard case .active(let listener, .connected(let connected)) = state, connected.generation == generation else { return Action() }
        let received: ReliableReceiver.Action
        do throws(ReliableChannelError) {
            received = try ledger.received(seq)
        } catch {
            return linkLost(generation, reason: "\(error)", now: now)
        }
        var action = Action()
        switch received {
        case .duplicate(let ack):
            action.write = enqueue([.ack(seq: ack)])
        case .deliver(let ack, let startTimer):
            if case .reply(let id, let data, _) = envelope {
                action.settle = (id, .success(Response(values: data)))
            } else {
                action.deliver = (envelope, listener)
            }
            if let ack { action.write = enqueue([.ack(seq: ack)]) }
            if startTimer, !ackTimerRunning {
                ackTimerRunning = true
                action.startAckTimer = true
            }
        }
        return action
    }

    // MARK: - Losing and leaving a link

    /// Link `generation` is unusable: when it carries the channel, reconnect where the policy
    /// says (`stalled`: it is open but left a message unacknowledged too long, a missed
    /// deadline); when it is still resuming, that attempt fails.
    mutating func linkLost(_ generation: Int, reason: String, stalled: Bool = false, now: Duration) -> Action {
        guard case .active(let listener, .connected(let connected)) = state, connected.generation == generation,
              let current = transport else {
            return Action(resume: failResume(generation, ConnectionError.connectFailed(reason)))
        }
        self.generation += 1
        state = .active(listener: listener, link: .none)
        var action = Action()
        action.note = .transportLost(current, reason: reason)
        let signal: FailoverSignal = stalled ? .deadlineMissed(current) : .dropped(current)
        switch policy.observe(signal, current: current, now: now) {
        case .switchTo(let target, let why):
            action.publish = publishing(.transportChanged(from: current, to: target, reason: why))
            action.relink = (connected.link, target)
        case .stay:
            action.relink = (connected.link, current)
        }
        return action
    }

    /// The policy wants `target` now (slow round trips, a path change, its interval).
    mutating func requestSwitch(to target: FailoverTransport, reason: String) -> Action {
        guard let connected, let current = transport, current != target, case .active(let listener, _) = state else { return Action() }
        generation += 1
        state = .active(listener: listener, link: .none)
        var action = Action()
        action.publish = publishing(.transportChanged(from: current, to: target, reason: reason))
        action.relink = (connected.link, target)
        return action
    }

    /// Attempt `generation`, resuming, fails with `error` (its link stays open until the
    /// attempt closes it): the waiter to answer.
    mutating func failResume(_ generation: Int, _ error: any Error) -> (waiter: Waiter, result: Result<Void, any Error>)? {
        guard case .active(let listener, .resuming(generation, _, _, let waiter)) = state else { return nil }
        state = .active(listener: listener, link: .connecting(generation: generation))
        return (waiter, .failure(error))
    }
}
