import Logging
import SocketIOProtocol
import SwitchboardCore

extension ReliableChannels {
    /// Handles one envelope from `link`; `false` when the link was closed for it.
    func receive(_ envelope: Envelope, on link: Link) async -> Bool {
        switch envelope {
        case .resume(let id, let received):
            return resume(id, received: received, on: link)
        case .ack(let seq):
            switch transition({ $0.acknowledge(through: seq, on: link.id) }) {
            case .refuse(let message):
                refuse(link, message)
                return false
            case .wake(let tokens):
                wake(tokens)
                return true
            }
        case .event, .request, .reply:
            switch link.inbox.yield(envelope) {
            case .enqueued:
                return true
            case .dropped:
                refuse(link, "too many messages ahead of their acknowledgements")
                return false
            case .terminated:
                return false  // the handler task stopped: the link is closing
            @unknown default:
                return false
            }
        case .error(let requestID?, let message):
            // The client declines one of the server's requests.
            if let id = transition({ $0.channel(carriedBy: link.id) }) {
                requests.settle(RequestKey(channel: id, id: requestID), with: .failure(.declined(message)))
            }
            return true
        case .error(nil, let message):
            logger.debug("the client reported an error", metadata: ["socketio.error": "\(message)"])
            return true
        case .resumed:
            refuse(link, "resumed is the server's to send")
            return false
        }
    }

    private func resume(_ id: String, received: UInt64, on link: Link) -> Bool {
        let now = timeline.now()
        let action = transition { $0.resume(id, received: received, on: link.id, now: now) { ReliableChannel(id: id, hub: self) } }
        switch action {
        case .unknownChannel(let outbox):
            // The client may start a new channel on this same transport.
            logger.debug("resume of an unknown channel", metadata: ["socketio.channel": "\(id)"])
            drain(outbox)
            return true
        case .refuse(let message):
            refuse(link, message)
            return false
        case .resumed(let resumption):
            // `resumed` and the replay were queued in that transition: nothing the app sends
            // meanwhile overtakes them.
            drain(resumption.drain)
            wake(resumption.wake)
            resumption.closePrevious?.close()
            if let announce = resumption.announce { announce.onChannel(announce.channel) }
            return true
        }
    }

    /// Runs one event, request or reply from `link`'s inbox, then has it acknowledged.
    func deliver(_ envelope: Envelope, on link: Link) async -> Bool {
        guard let seq = envelope.seq else {
            refuse(link, "a message on a channel needs its seq")
            return false
        }
        let id: String
        let channel: ReliableChannel?
        let receipt: Machine.Receipt
        switch transition({ $0.receive(seq, on: link.id) }) {
        case .stop:
            return false
        case .refuse(let message):
            refuse(link, message)
            return false
        case .duplicate(let outbox):
            drain(outbox)
            return true
        case .deliver(let channelID, let handlers, let delivered):
            (id, channel, receipt) = (channelID, handlers, delivered)
        }
        // One handler at a time per channel, also when its client moved it to another link
        // while this one's handler still ran. Acknowledged once handled (flow control: see the
        // type's notes), after the answer.
        await handlerTurns.take(id)
        let answer = await handle(envelope, on: id, by: channel)
        let handled = transition { $0.handled(receipt, channel: id, on: link.id, answer: answer) }
        handlerTurns.give(id)
        drain(handled.drain)
        if handled.armAckTimer { armAckTimer(id) }
        return true
    }

    /// Hands `envelope` to the app's handlers on `channel`; returns the `error` that answers a
    /// request no handler answered, if any.
    private func handle(_ envelope: Envelope, on id: String, by channel: ReliableChannel?) async -> Envelope? {
        guard let channel else { return nil }
        switch envelope {
        case .event(let name, let data, _):
            do {
                _ = try await channel.handler(for: name)?(data)
            } catch {
                // An event has no one to answer: the server's log says it failed.
                logger.warning("a channel event's handler failed", metadata: [
                    "socketio.channel": "\(id)", "socketio.event": "\(name)", "socketio.error": "\(error)",
                ])
            }
            return nil
        case .request(let name, let data, let requestID, _):
            guard let handler = channel.handler(for: name) else {
                return .error(id: requestID, message: "no handler for \"\(name)\"")
            }
            let values: [JSONValue]
            do {
                values = try await handler(data)
            } catch {
                return .error(id: requestID, message: "\(error)")
            }
            do {
                try await send(.reply(id: requestID, data: values), on: id, waitingUpTo: replyTimeout)
            } catch {
                logger.warning("a channel request's reply was not sent", metadata: [
                    "socketio.channel": "\(id)", "socketio.event": "\(name)", "socketio.error": "\(error)",
                ])
            }
            return nil
        case .reply(let requestID, let values, _):
            requests.settle(RequestKey(channel: id, id: requestID), with: .success(values))
            return nil
        case .error, .ack, .resume, .resumed:
            return nil
        }
    }
}
