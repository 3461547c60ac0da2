import DequeModule
package import SocketIOProtocol

/// The server's reliable channels (SPEC.md part E), as a value type: per channel id, the
/// sequence state of both directions, which survives the client moving from one transport to
/// the other and back; bounded in number and in time (a channel no transport carries expires).
/// When the table is full, a new channel takes the place of the one detached longest ago (whose
/// client, if it ever comes back, starts a new channel): only channels that transports carry
/// count against new ones, so clients that close their channels cannot fill the table for the
/// length of the expiry.
///
/// A transport carries at most one channel: the envelopes on it name none, so a second would
/// make them ambiguous (and let one connection fill the table).
///
/// The owner (the channel endpoint) holds it under a lock and passes the time in; nothing here
/// does I/O. `Message` is what the server sends on a channel (an `Envelope` in production).
///
/// No operation reads every channel: a transport's channels are indexed by transport, and the
/// detached ones queue in the order they were detached, so expiry takes them from the front
/// (with thousands of channels held, each resume and each message used to scan them all).
package struct ReliableChannelTable<Message: Sendable>: Sendable {
    package enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// A resume from `received` > 0 for a channel this server does not hold (it expired, or
        /// another server had it): the client must start a new channel and resynchronise.
        case unknownChannel(String)
        /// The most channels are open already, every one of them carried by a transport.
        case tooManyChannels(Int)
        /// The client's resume point does not fit the channel's state.
        case invalidResume(ReliableChannelError)
        /// A resume of another channel on a transport that carries this one.
        case transportCarriesAnother(String)

        package var description: String {
            switch self {
            case .unknownChannel(let id): "unknown or expired channel \"\(id)\""
            case .tooManyChannels(let limit): "too many channels (\(limit))"
            case .invalidResume(let error): "cannot resume: \(error)"
            case .transportCarriesAnother(let id): "the transport carries channel \"\(id)\" already"
            }
        }
    }

    /// One channel's state.
    package struct Channel: Sendable {
        package var sender: ReliableSender<Message>
        package var receiver: ReliableReceiver
        /// Which transport carries it now (the endpoint's connection id), if any.
        package var attachment: Int?
        /// Since when no transport carries it.
        package var detachedSince: Duration?
        /// Answers that are not numbered (a request's `error`), made while no transport
        /// carried the channel: they go after the next resume's `resumed`, since nothing sends
        /// them again.
        package var heldAnswers: [Message] = []
    }

    /// The most channels held at once.
    package let maxChannels: Int
    /// How long a channel no transport carries is kept.
    package let expiry: Duration
    /// The window of each channel's sender.
    package let window: Int
    package private(set) var channels: [String: Channel] = [:]
    /// The channel each transport carries.
    private var carried: [Int: String] = [:]
    /// Detached channels, oldest first, with the time each was detached; an entry whose channel
    /// was attached (or detached again) since is skipped when its turn comes.
    private var detached: Deque<(id: String, since: Duration)> = []

    package init(maxChannels: Int = 10_000, expiry: Duration = .seconds(120), window: Int = 1_000) {
        self.maxChannels = max(maxChannels, 1)
        self.expiry = expiry
        self.window = max(window, 1)
    }

    /// What a `resume` gets: this side's resume point and what to send again, in order.
    package struct Resumed: Sendable {
        package var received: UInt64
        package var resend: [(seq: UInt64, message: Message)]
        /// The transport that carried the channel until now, if another one (close it).
        package var previousAttachment: Int?
        /// The channels that expired before this resume (``expire(now:)``), forgotten now.
        package var expired: [String] = []
        /// The detached channel this new one took the place of in a full table, forgotten now.
        package var evicted: String?
    }

    /// A client opened (`received` 0) or resumed channel `id` on transport `attachment`.
    package mutating func resume(_ id: String, received: UInt64, on attachment: Int, now: Duration) throws(Refusal) -> Resumed {
        let expired = expire(now: now)
        if let carrying = carried[attachment], carrying != id { throw .transportCarriesAnother(carrying) }
        guard var channel = channels[id] else {
            guard received == 0 else { throw .unknownChannel(id) }
            var evicted: String?
            if channels.count >= maxChannels {
                guard let oldest = evictOldestDetached() else { throw .tooManyChannels(maxChannels) }
                evicted = oldest
            }
            var fresh = Channel(sender: ReliableSender(window: window), receiver: ReliableReceiver(), attachment: attachment)
            let point = fresh.receiver.resumePoint()
            channels[id] = fresh
            carried[attachment] = id
            return Resumed(received: point, resend: [], previousAttachment: nil, expired: expired, evicted: evicted)
        }
        let resend: [(seq: UInt64, message: Message)]
        do throws(ReliableChannelError) {
            resend = try channel.sender.resume(peerReceived: received)
        } catch {
            throw .invalidResume(error)
        }
        let previous = channel.attachment == attachment ? nil : channel.attachment
        if let previous { uncarry(id, by: previous) }
        channel.attachment = attachment
        channel.detachedSince = nil
        carried[attachment] = id
        let point = channel.receiver.resumePoint()
        channels[id] = channel
        return Resumed(received: point, resend: resend, previousAttachment: previous, expired: expired)
    }

    /// Transport `attachment` closed: the channel it carried waits for a resume until it expires.
    package mutating func detach(_ attachment: Int, now: Duration) {
        guard let id = carried.removeValue(forKey: attachment), channels[id]?.attachment == attachment else { return }
        channels[id]?.attachment = nil
        channels[id]?.detachedSince = now
        detached.append((id, now))
    }

    /// The channel transport `attachment` carries, if any.
    package func channel(carriedBy attachment: Int) -> String? {
        carried[attachment]
    }

    /// Forgets the channels detached for longer than ``expiry``; returns their ids.
    @discardableResult
    package mutating func expire(now: Duration) -> [String] {
        var expired: [String] = []
        while let oldest = detached.first, now - oldest.since > expiry {
            detached.removeFirst()
            if forgetIfStillDetached(oldest) { expired.append(oldest.id) }
        }
        return expired
    }

    /// When the next detached channel is due to expire (it expires just after), if any: the
    /// owner's one expiry timer is armed for it. It may name a channel resumed since; expiry
    /// then forgets nothing and the timer is armed for the next.
    package var nextExpiry: Duration? {
        detached.first.map { $0.since + expiry }
    }

    /// Forgets the channel detached longest ago; its id, or nil when transports carry them all.
    private mutating func evictOldestDetached() -> String? {
        while let oldest = detached.popFirst() {
            if forgetIfStillDetached(oldest) { return oldest.id }
        }
        return nil
    }

    /// Forgets the channel of a `detached` entry unless it was resumed (or detached again) since.
    private mutating func forgetIfStillDetached(_ entry: (id: String, since: Duration)) -> Bool {
        guard let channel = channels[entry.id], channel.attachment == nil, channel.detachedSince == entry.since else { return false }
        channels.removeValue(forKey: entry.id)
        return true
    }

    private mutating func uncarry(_ id: String, by attachment: Int) {
        if carried[attachment] == id { carried.removeValue(forKey: attachment) }
    }

    /// Runs `body` on channel `id`'s state (sending, acknowledging, receiving).
    package mutating func withChannel<Result, Failure: Error>(
        _ id: String, _ body: (inout Channel) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard var channel = channels[id] else { return nil }
        defer { channels[id] = channel }
        return try body(&channel)
    }
}
