import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

extension FailoverDriver {
    /// A report from link `generation`.
    func handle(_ event: FailoverLinkEvent, from generation: Int) {
        switch event {
        case .envelope(.success(let envelope)):
            receive(envelope, from: generation)
        case .envelope(.failure(let error)):
            linkBroke(generation, reason: "the server sent a malformed envelope: \(error)")
        case .ended(let reason):
            linkBroke(generation, reason: reason)
        }
    }

    private func receive(_ envelope: Envelope, from generation: Int) {
        switch envelope {
        case .resumed(let channel, let received):
            let waiter = state.withLockedValue { state -> CheckedContinuation<UInt64, any Error>? in
                guard channel == state.channelID, let waiter = state.resumeWaiter, waiter.generation == generation else { return nil }
                state.resumeWaiter = nil
                state.lastRecovered = state.opened
                state.opened = true
                return waiter.continuation
            }
            waiter?.resume(returning: received)
        case .ack(let seq):
            acknowledged(seq, from: generation)
        case .error(let id?, let message):
            _ = requests.settle(id, with: .failure(.driverFailed(message)))
        case .error(nil, let message):
            // Before `resumed`: the server refused the channel (expired, too many); otherwise it
            // closes the transport after this and the channel resumes elsewhere.
            logger.warning("the channel's server reported an error", metadata: ["switchboard.error": "\(message)"])
            let waiter = state.withLockedValue { state -> CheckedContinuation<UInt64, any Error>? in
                guard let waiter = state.resumeWaiter, waiter.generation == generation else { return nil }
                state.resumeWaiter = nil
                return waiter.continuation
            }
            waiter?.resume(throwing: message.hasPrefix(Self.unknownChannelMessage)
                ? FailoverDriver.ChannelGone(message: message) as any Error
                : ConnectionError.connectFailed(message))
        case .event, .request, .reply:
            deliver(envelope, from: generation)
        case .resume:
            linkBroke(generation, reason: "the server sent resume")
        }
    }

    private func acknowledged(_ seq: UInt64, from generation: Int) {
        let now = timeline.now()
        let outcome: (roundTrip: Duration?, decision: FailoverDecision, broken: Bool)? = state.withLockedValue { state in
            guard state.generation == generation, let transport = state.transport else { return nil }
            do throws(ReliableChannelError) {
                try state.sender.acknowledged(through: seq)
            } catch {
                return (nil, .stay, true)
            }
            let roundTrip = state.sentAt[seq].map { now - $0 }
            state.sentAt = state.sentAt.filter { $0.key > seq }
            guard let roundTrip else { return (nil, .stay, false) }
            return (roundTrip, state.policy.observe(.roundTrip(roundTrip), current: transport, now: now), false)
        }
        guard let outcome else { return }
        if outcome.broken {
            linkBroke(generation, reason: "the server acknowledged what was never sent")
            return
        }
        if case .switchTo(let next, let reason) = outcome.decision { requestSwitch(to: next, reason: reason) }
    }

    private func deliver(_ envelope: Envelope, from generation: Int) {
        guard let seq = envelope.seq else {
            linkBroke(generation, reason: "a channel message without seq")
            return
        }
        let outcome: Result<(ReliableReceiver.Action, (any FailoverLink)?, (@Sendable (DriverEvent) -> Void)?), ReliableChannelError>? =
            state.withLockedValue { state in
                guard state.generation == generation, state.link != nil || state.resumeWaiter == nil else { return nil }
                do throws(ReliableChannelError) {
                    return .success((try state.receiver.received(seq), state.link, state.onEvent))
                } catch {
                    return .failure(error)
                }
            }
        switch outcome {
        case nil:
            return
        case .failure(let error):
            linkBroke(generation, reason: "\(error)")
        case .success(let (action, link, onEvent)):
            guard case .deliver(let ack, let startTimer) = action else {
                if case .duplicate(let ack) = action { link?.send(.ack(seq: ack)) }
                return
            }
            switch envelope {
            case .event(let name, let data, _): onEvent?(.event(name, data))
            case .reply(let id, let data, _): _ = requests.settle(id, with: .success(Response(values: data)))
            case .request(let name, let data, let id, _): onEvent?(.request(name, data, reply(to: id)))
            case .error, .ack, .resume, .resumed: break
            }
            if let ack { link?.send(.ack(seq: ack)) }
            if startTimer { scheduleAck() }
        }
    }

    /// How feature code answers the server's request `id`: the reply is numbered like every
    /// channel message (it survives a switch); a decline goes out on the current transport only
    /// (if it is lost, the server's request times out).
    private func reply(to id: Int) -> DriverReply {
        DriverReply(
            send: { [weak self] values in
                guard let self else { return false }
                do {
                    try self.transmit(.reply(id: id, data: values))
                    return true
                } catch {
                    return false
                }
            },
            decline: { [weak self] message in
                self?.state.withLockedValue { $0.link }?.send(.error(id: id, message: message))
            }
        )
    }

    private func scheduleAck() {
        guard state.withLockedValue({ state -> Bool in
            defer { state.ackTimer = true }
            return !state.ackTimer
        }) else { return }
        let delay = options.ackDelay
        Task { [weak self] in
            try? await self?.timeline.sleep(delay)
            self?.state.withLockedValue { state in
                state.ackTimer = false
                guard let link = state.link, let seq = state.receiver.ackDue() else { return }
                link.send(.ack(seq: seq))
            }
        }
    }

    /// Link `generation` is unusable: when it is the current one, reconnect where the policy says
    /// (`stalled`: it is open but left a message unacknowledged too long, a missed deadline).
    func linkBroke(_ generation: Int, reason: String, stalled: Bool = false) {
        let now = timeline.now()
        let next: (FailoverTransport, FailoverTransport, String?, (any FailoverLink)?)? = state.withLockedValue { state in
            guard state.generation == generation, !state.closed, let current = state.transport, state.link != nil else { return nil }
            state.generation += 1
            defer { state.link = nil }
            let signal: FailoverSignal = stalled ? .deadlineMissed(current) : .dropped(current)
            switch state.policy.observe(signal, current: current, now: now) {
            case .switchTo(let target, let why): return (current, target, why, state.link)
            case .stay: return (current, current, nil, state.link)
            }
        }
        guard let (from, to, why, link) = next else {
            // A link still opening: its resume fails and the connect loop goes on.
            failOpening(generation, reason)
            return
        }
        logger.info("channel transport lost", metadata: ["switchboard.transport": "\(from)", "switchboard.reason": "\(reason)"])
        if let why { publish(.transportChanged(from: from, to: to, reason: why)) }
        relink(to: to, closing: link)
    }

    private func failOpening(_ generation: Int, _ reason: String) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<UInt64, any Error>? in
            guard let waiter = state.resumeWaiter, waiter.generation == generation else { return nil }
            state.resumeWaiter = nil
            return waiter.continuation
        }
        waiter?.resume(throwing: ConnectionError.connectFailed(reason))
    }

    /// The policy wants `target` now (slow round trips, a path change).
    func requestSwitch(to target: FailoverTransport, reason: String) {
        let move: (FailoverTransport, (any FailoverLink)?)? = state.withLockedValue { state in
            guard !state.closed, let current = state.transport, current != target, state.link != nil else { return nil }
            state.generation += 1
            defer { state.link = nil }
            return (current, state.link)
        }
        guard let (from, link) = move else { return }
        publish(.transportChanged(from: from, to: target, reason: reason))
        relink(to: target, closing: link)
    }
}
