import SocketIOProtocol

/// The rules of ``ReliableChannels`` as a value type: the channel table, the transport links and
/// what waits to be written to each, the acknowledgement timers that run, and which senders wait
/// for room in a channel's window.
///
/// The owner holds it under its lock and feeds it one input per transition — an envelope from a
/// link, an app's send, a link attached or detached, a timer that fired — then, with the lock
/// released, does what the transition returned: writes a link's outbox, closes a link, wakes
/// senders waiting for room, arms an acknowledgement timer, calls the app's `onChannel`, releases
/// what the app held for the channels it forgot and wakes their senders (``takeReleased()``). Nothing
/// here does I/O or reads a clock (the time is passed in).
///
/// `Link` is one transport connection (its send and close, opaque here) and `Channel` what the
/// app holds for a channel (``ReliableChannel`` in production), so every rule is tested without
/// sockets.
///
/// Order on the wire: every envelope for a link is queued in the link's ``LinkOutbox`` by the
/// transition that decides it — `resumed` before what is sent again, numbered messages in
/// sequence order, an acknowledgement piggybacked ahead of a message — and one drainer at a time
/// writes that outbox out, so the wire has the order of the transitions. Only a refusal (an
/// `error`, then close) is written at once by the owner: that link is done.
struct ReliableChannelsStateMachine<Link: Sendable, Channel: Sendable>: Sendable {
    /// The app's hook for a new channel.
    typealias OnChannel = @Sendable (Channel) -> Void

    /// A transport connection the owner attached, and what waits to be written to it.
    private struct Attached: Sendable {
        let link: Link
        var outbox = LinkOutbox<Envelope>()
    }

    private(set) var table: ReliableChannelTable<Envelope>
    private var links: [Int: Attached] = [:]
    /// What the app holds for each channel, kept until the table forgets the channel.
    private var channels: [String: Channel] = [:]
    private var lastLink = 0
    /// Channels whose acknowledgement timer is armed (one at a time each).
    private var ackTimers: Set<String> = []
    private var onChannel: OnChannel?
    /// The tokens of the senders waiting for room in a channel's window, by channel.
    private var roomWaits: [String: Set<Int>] = [:]
    private var lastRoomWait = 0
    private var nextRequestID = 0
    /// Whether the owner's expiry timer is armed.
    private var expiryTimerArmed = false
    /// What the app held for channels forgotten since the owner last took them.
    private var released = Released()

    init(table: ReliableChannelTable<Envelope>) {
        self.table = table
    }

    // MARK: - Links

    /// A transport connected: `make` builds its link around the id it gets.
    mutating func attach(_ make: (Int) -> Link) -> Link {
        lastLink += 1
        let link = make(lastLink)
        links[lastLink] = Attached(link: link)
        return link
    }

    /// Transport `link` closed: what waited to be written to it is dropped (numbered messages stay
    /// with their channel, which waits for a resume until it expires). Returns the delay after
    /// which the owner is to call ``expiryTimerFired(now:)``, when that timer is to be armed.
    mutating func detach(_ link: Int, now: Duration) -> Duration? {
        links.removeValue(forKey: link)
        table.detach(link, now: now)
        return armExpiryTimer(now: now)
    }

    /// The next batch for the drainer of `link`'s outbox, oldest first; `nil` when nothing is
    /// left (or the link is gone): the drainer stops.
    mutating func takeOutbound(from link: Int) -> [Envelope]? {
        links[link]?.outbox.take()
    }

    /// Queues `envelopes` for `link`; returns the link when the caller is to drain its outbox.
    private mutating func queue(_ envelopes: [Envelope], on link: Int) -> Link? {
        guard links[link]?.outbox.append(contentsOf: envelopes) == true else { return nil }
        return links[link]?.link
    }

    /// The channel `link` carries, if any.
    func channel(carriedBy link: Int) -> String? {
        table.channel(carriedBy: link)
    }

    /// Forgets the channels no transport has carried for longer than the table's expiry, and
    /// what the app held for them.
    mutating func expire(now: Duration) {
        for id in table.expire(now: now) { forget(id) }
    }

    /// What the channels forgotten since the owner last asked leave behind.
    struct Released {
        /// What the app held for them: the owner releases each (drops its handlers).
        var channels: [Channel] = []
        /// The senders that waited for room in their windows: the owner wakes them, and each
        /// finds its channel gone (rather than waiting out its deadline).
        var wake: [Int] = []
    }

    /// Forgets what the app held for channel `id` and who waits for room in it, for the owner
    /// (``takeReleased()``).
    private mutating func forget(_ id: String) {
        if let channel = channels.removeValue(forKey: id) { released.channels.append(channel) }
        released.wake += wakeRoomWaits(on: id)
    }

    /// What the app held for the channels forgotten since the last call: the owner releases them
    /// (drops their handlers, which may hold them) after each transition, outside the lock.
    mutating func takeReleased() -> Released {
        guard !released.channels.isEmpty || !released.wake.isEmpty else { return Released() }
        defer { released = Released() }
        return released
    }

    /// The expiry timer fired: forgets what expired and returns the delay to arm it again after,
    /// when channels still wait to expire.
    mutating func expiryTimerFired(now: Duration) -> Duration? {
        expiryTimerArmed = false
        expire(now: now)
        return armExpiryTimer(now: now)
    }

    /// One expiry timer at a time, armed for the channel detached longest ago (a timer for each
    /// closed transport kept every closure alive for the length of the expiry: memory grew with
    /// the rate of connections, thousands a second under churn).
    private mutating func armExpiryTimer(now: Duration) -> Duration? {
        guard !expiryTimerArmed, let due = table.nextExpiry else { return nil }
        expiryTimerArmed = true
        return max(due - now, .zero) + .milliseconds(1)
    }

    // MARK: - The app

    mutating func setOnChannel(_ handler: @escaping OnChannel) {
        onChannel = handler
    }

    /// What the app holds for channel `id`, while the server holds the channel.
    func channel(_ id: String) -> Channel? {
        channels[id]
    }

    /// How many channels are held.
    var count: Int { table.channels.count }

    /// Messages sent on channel `id` that the client has not acknowledged.
    func unacknowledgedCount(of id: String) -> Int {
        table.channels[id]?.sender.unacknowledged.count ?? 0
    }

    /// The id of the server's next request (unique across channels).
    mutating func nextRequest() -> Int {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    /// The app sends `envelope` on channel `id`: numbers it and, when a link carries the channel,
    /// queues it there behind the acknowledgement now due (piggybacked); otherwise the next
    /// resume sends it. Returns the link when the caller is to drain its outbox.
    mutating func send(_ envelope: Envelope, on id: String) throws(ReliableChannelError) -> Link? {
        let attachment = table.channels[id]?.attachment
        let numbered = try table.withChannel(id) { (channel) throws(ReliableChannelError) -> (seq: UInt64, ack: UInt64?) in
            let seq = try channel.sender.send(envelope)
            return (seq, attachment == nil ? nil : channel.receiver.ackDue())
        }
        guard let numbered else { throw .channelGone }
        guard let attachment else { return nil }
        var envelopes: [Envelope] = []
        if let ack = numbered.ack { envelopes.append(.ack(seq: ack)) }
        envelopes.append(envelope.numbered(numbered.seq))
        return queue(envelopes, on: attachment)
    }

    /// Channel `id`'s acknowledgement timer fired: queues what is due on the link carrying it.
    /// Returns the link when the caller is to drain its outbox.
    mutating func ackTimerFired(_ id: String) -> Link? {
        ackTimers.remove(id)
        guard let seq = table.withChannel(id, { $0.receiver.ackDue() }) ?? nil,
              let attachment = table.channels[id]?.attachment else { return nil }
        return queue([.ack(seq: seq)], on: attachment)
    }

    // MARK: - Waiting for room

    /// A token for a sender about to wait for room (the owner registers its wake-up under it
    /// before ``waitForRoom(on:token:)``, so no acknowledgement in between is missed).
    mutating func reserveRoomWait() -> Int {
        lastRoomWait += 1
        return lastRoomWait
    }

    /// Sender `token` would wait for room on channel `id`: `true` when it waits (the window is
    /// full; an acknowledgement or a resume wakes it), `false` when there is room already or the
    /// channel is gone.
    mutating func waitForRoom(on id: String, token: Int) -> Bool {
        guard let sender = table.channels[id]?.sender, sender.unacknowledged.count >= sender.window else { return false }
        roomWaits[id, default: []].insert(token)
        return true
    }

    /// Sender `token` stopped waiting (its deadline passed): forgets it.
    mutating func roomWaitEnded(_ token: Int, on id: String) {
        roomWaits[id]?.remove(token)
        if roomWaits[id]?.isEmpty == true { roomWaits.removeValue(forKey: id) }
    }

    /// The senders waiting on channel `id`, which an acknowledgement or resume woke: their
    /// tokens, in order.
    private mutating func wakeRoomWaits(on id: String) -> [Int] {
        (roomWaits.removeValue(forKey: id) ?? []).sorted()
    }

    // MARK: - From the client

    /// What a `resume` leads to.
    enum ResumeAction {
        /// The channel is on the link now: `resumed`, then what the client lacks, are queued.
        case resumed(Resumption)
        /// A resume of a channel this server does not hold: an `error` saying so is queued (the
        /// client may open a new channel on the same link). `drain` as in ``Resumption``.
        case unknownChannel(drain: Link?)
        /// Tell the client why and close the link.
        case refuse(String)
    }

    /// Everything a successful resume asks the owner to do.
    struct Resumption {
        /// Drain this link's outbox (the caller is its drainer).
        var drain: Link?
        /// The link that carried the channel until now: close it.
        var closePrevious: Link?
        /// Senders to wake: the resume acknowledged what the client received, so there may be room.
        var wake: [Int]
        /// A channel the app has not seen yet: hand it to the app's `onChannel`.
        var announce: (channel: Channel, onChannel: OnChannel)?
    }

    /// The client on `link` opened (`received` 0) or resumed channel `id`; `fresh` is what the
    /// app will hold for it if it is new.
    mutating func resume(_ id: String, received: UInt64, on link: Int, now: Duration, fresh: () -> Channel) -> ResumeAction {
        // Expired first, and forgotten here too, whatever the resume leads to.
        expire(now: now)
        let resumed: ReliableChannelTable<Envelope>.Resumed
        do throws(ReliableChannelTable<Envelope>.Refusal) {
            resumed = try table.resume(id, received: received, on: link, now: now)
        } catch .unknownChannel(let unknown) {
            let refusal = ReliableChannelTable<Envelope>.Refusal.unknownChannel(unknown)
            return .unknownChannel(drain: queue([.error(id: nil, message: refusal.description)], on: link))
        } catch {
            return .refuse(error.description)
        }
        let known = channels[id]
        let channel = known ?? fresh()
        channels[id] = channel
        for expired in resumed.expired { forget(expired) }
        if let evicted = resumed.evicted { forget(evicted) }
        let replay = resumed.resend.map { $0.message.numbered($0.seq) }
        let held: [Envelope] = table.withChannel(id) { (channel: inout ReliableChannelTable<Envelope>.Channel) -> [Envelope] in
            defer { channel.heldAnswers = [] }
            return channel.heldAnswers
        } ?? []
        return .resumed(Resumption(
            drain: queue([.resumed(channel: id, received: resumed.received)] + replay + held, on: link),
            closePrevious: resumed.previousAttachment.flatMap { links[$0]?.link },
            wake: wakeRoomWaits(on: id),
            announce: known == nil ? onChannel.map { (channel, $0) } : nil
        ))
    }

    /// What an acknowledgement leads to.
    enum AckAction: Hashable {
        /// The messages are released: wake these senders waiting for room.
        case wake([Int])
        /// Tell the client why and close the link.
        case refuse(String)
    }

    /// The client on `link` acknowledged every message through `seq`.
    mutating func acknowledge(through seq: UInt64, on link: Int) -> AckAction {
        guard let id = channel(carriedBy: link) else {
            return .refuse("\(ReliableChannelError.ackBeyondSent(seq: seq, lastSent: 0))")
        }
        do throws(ReliableChannelError) {
            _ = try table.withChannel(id) { (channel) throws(ReliableChannelError) in try channel.sender.acknowledged(through: seq) }
        } catch {
            return .refuse("\(error)")
        }
        return .wake(wakeRoomWaits(on: id))
    }

    /// What a numbered message (an event, a request or a reply) leads to.
    enum Delivery {
        /// Hand it to the app (`channel` is what the app holds for channel `id`, if anything),
        /// then report ``handled(_:channel:on:answer:)`` with `receipt`.
        case deliver(id: String, channel: Channel?, receipt: Receipt)
        /// Seen before: dropped, its acknowledgement queued. `drain` as in ``Resumption``.
        case duplicate(drain: Link?)
        /// Tell the client why and close the link.
        case refuse(String)
        /// The link was detached meanwhile (another took its channel over): stop quietly.
        case stop
    }

    /// How to acknowledge a delivered message once the app has handled it.
    struct Receipt: Hashable {
        /// Acknowledge through this now, if set.
        var ack: UInt64?
        /// Otherwise start the channel's acknowledgement timer, unless it runs.
        var startTimer: Bool
    }

    /// Numbered message `seq` came on `link`, for its handler.
    mutating func receive(_ seq: UInt64, on link: Int) -> Delivery {
        // No channel on the link: a detached link stops quietly, a live one did not resume.
        let unattached: Delivery = links[link] == nil ? .stop : .refuse("resume a channel first")
        guard let id = channel(carriedBy: link) else { return unattached }
        let action: ReliableReceiver.Action?
        do throws(ReliableChannelError) {
            action = try table.withChannel(id) { (channel) throws(ReliableChannelError) in try channel.receiver.received(seq) }
        } catch {
            return .refuse("\(error)")
        }
        guard let action else { return unattached }
        switch action {
        case .duplicate(let ack):
            return .duplicate(drain: queue([.ack(seq: ack)], on: link))
        case .deliver(let ack, let startTimer):
            return .deliver(id: id, channel: channels[id], receipt: Receipt(ack: ack, startTimer: startTimer))
        }
    }

    /// What the owner does once the app handled a message.
    struct Handled {
        /// Drain this link's outbox (the caller is its drainer).
        var drain: Link?
        /// Arm channel's acknowledgement timer (none runs).
        var armAckTimer: Bool
    }

    /// The app handled a message that came on `link` for channel `id`: queues `answer` (the
    /// `error` for a request that got none), then the acknowledgement `receipt` asks for, and
    /// arms the channel's acknowledgement timer when it asks for that and none runs.
    ///
    /// The unnumbered `error` is not sent again, so it goes where the client listens: on the
    /// transport that carries the channel now (the client may have resumed it on another while
    /// the handler ran), or, with none, after the next resume's `resumed` (which acknowledges).
    mutating func handled(_ receipt: Receipt, channel id: String, on link: Int, answer: Envelope?) -> Handled {
        let armAckTimer = receipt.startTimer && ackTimers.insert(id).inserted
        if let channel = table.channels[id], channel.attachment == nil {
            if let answer { _ = table.withChannel(id) { $0.heldAnswers.append(answer) } }
            return Handled(drain: nil, armAckTimer: armAckTimer)
        }
        var envelopes: [Envelope] = []
        if let answer { envelopes.append(answer) }
        if let ack = receipt.ack { envelopes.append(.ack(seq: ack)) }
        return Handled(drain: queue(envelopes, on: table.channels[id]?.attachment ?? link), armAckTimer: armAckTimer)
    }

    // MARK: - Diagnostics

    /// Every channel's state, one line each (for logs and tests that time out; never parsed).
    var diagnostics: [String] {
        table.channels.map { id, channel in
            "channel \(id): attachment \(channel.attachment.map(String.init) ?? "none") "
                + "(links \(links.keys.sorted())), sent \(channel.sender.lastSent), "
                + "unacknowledged \(channel.sender.unacknowledged.count), delivered \(channel.receiver.delivered)"
        }
    }
}
