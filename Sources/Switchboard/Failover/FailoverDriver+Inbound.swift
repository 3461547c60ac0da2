import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

extension FailoverDriver {
    /// A report from link `generation`.
    func handle(_ event: FailoverLinkEvent, from generation: Int) {
        let now = timeline.now()
        perform(state.withLockedValue { $0.linkReported(event, generation: generation, now: now) })
    }

    /// Performs what a transition asked for, outside the lock, in the order the machine lists.
    func perform(_ action: Machine.Action) {
        if let (envelope, listener) = action.deliver {
            switch envelope {
            case .event(let name, let data, _): listener?(.event(name, data))
            case .request(let name, let data, let id, _): listener?(.request(name, data, reply(to: id)))
            case .reply, .error, .ack, .resume, .resumed: break
            }
        }
        if let (id, result) = action.settle { _ = requests.settle(id, with: result) }
        write(action.write)
        switch action.note {
        case .resumed(let transport, let resent)?:
            logger.debug("channel resumed", metadata: ["switchboard.transport": "\(transport)", "switchboard.resent": "\(resent)"])
        case .transportLost(let transport, let reason)?:
            logger.info("channel transport lost", metadata: ["switchboard.transport": "\(transport)", "switchboard.reason": "\(reason)"])
        case .switching(let target, let reason)?:
            logger.info("channel switching transport", metadata: ["switchboard.to": "\(target)", "switchboard.reason": "\(reason)"])
        case .serverError(let message)?:
            logger.warning("the channel's server reported an error", metadata: ["switchboard.error": "\(message)"])
        case nil:
            break
        }
        action.publish?.run()
        if let (link, target) = action.relink { relink(to: target, closing: link) }
        if action.startAckTimer {
            let delay = options.ackDelay
            Task { [weak self] in
                try? await self?.timeline.sleep(delay)
                self?.fire(.ackDelay)
            }
        }
        if let (waiter, result) = action.resume { waiter.resume(with: result) }
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
                try? self?.transmit(.decline(id: id, message: message))
            }
        )
    }
}
