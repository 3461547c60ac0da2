import Logging
import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardCore

extension FailoverDriver {
    /// A report from link `generation`.
    func handle(_ event: FailoverLinkEvent, from generation: Int) {
        run { machine, now in machine.linkReported(event, generation: generation, now: now) }
    }

    /// Runs one transition (a link report, a timer, a path change) at `now` under the lock, and
    /// performs its actions after releasing it.
    func run(_ transition: (inout Machine, Duration) -> Machine.Action) {
        let now = timeline.now()
        perform(state.withLockedValue { transition(&$0, now) })
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
        roomWaits.admit(action.admit)
        action.note?.log(to: logger)
        action.publish?.run()
        if let (link, target) = action.relink { relink(to: target, closing: link) }
        if action.startAckTimer {
            let (delay, timeline) = (options.ackDelay, timeline)
            Task { [weak self] in
                try? await timeline.sleep(delay)
                self?.fire(.ackDelay)
            }
        }
        if let (waiter, result) = action.resume { waiter.resume(with: result) }
    }

    /// How feature code answers the server's request `id`: the reply is numbered like every
    /// channel message (it survives a switch); a decline goes out on the current transport, or
    /// after the next resume when none carries the channel.
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
