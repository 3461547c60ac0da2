import SocketIOProtocol

/// A failover channel's books, as a value type: its id, what it numbered and the server has not
/// acknowledged yet (and when each went out), the sends waiting for room in that window, what
/// it delivered and has yet to acknowledge.
/// ``FailoverChannelStateMachine`` keeps one and decides when to use it; nothing here knows
/// about links or policies.
struct FailoverLedger: Sendable {
    /// The channel's id (the server keys its state by it).
    private(set) var channelID: String
    /// Whether the server has opened the channel once (a later resume recovers it).
    private(set) var openedOnServer = false
    /// Whether the last resume found the channel the server held (`false`: a new one).
    private(set) var recovered: Bool?
    private(set) var sender: ReliableSender<Envelope>
    private(set) var receiver: ReliableReceiver
    private(set) var nextRequestID = 0
    /// When each numbered message went out on the current link (round trips, stalls).
    private(set) var sentAt: [UInt64: Duration] = [:]
    /// The sends waiting for room in the window, and the slots held for those admitted.
    private(set) var room = FailoverRoom()
    /// Declines of the server's requests (unnumbered `error`s) made while no link carried the
    /// channel: they go out after the next resume, since the server, which counted each request
    /// as delivered, never sends it again (lost, its request would wait out its timeout).
    private(set) var heldDeclines: [Envelope] = []

    init(channelID: String, window: Int, ackEvery: Int) {
        self.channelID = channelID
        self.sender = ReliableSender(window: window)
        self.receiver = ReliableReceiver(ackEvery: ackEvery)
    }

    /// The id of the next request.
    mutating func requestID() -> Int {
        defer { nextRequestID += 1 }
        return nextRequestID
    }

    /// Numbers `envelope` and keeps it until acknowledged, in the slot `token` holds if any.
    /// - Throws: ``ReliableChannelError/windowFull(window:)`` when the window is full or others
    ///   wait for room (nothing was kept).
    mutating func number(_ envelope: Envelope, holding token: Int? = nil) throws(ReliableChannelError) -> UInt64 {
        guard room.admits(token, unacknowledged: sender.unacknowledged.count, window: sender.window) else {
            throw .windowFull(window: sender.window)
        }
        if let token { room.used(token) }
        return try sender.send(envelope)
    }

    /// Keeps `decline` for the next resume (no link carries the channel now).
    mutating func hold(decline: Envelope) {
        heldDeclines.append(decline)
    }

    // MARK: - Waiting for room

    /// A token for a send that found the window full and will wait.
    mutating func roomToken() -> Int { room.token() }

    /// `token` waits for room: `true` when it holds a slot at once.
    mutating func waitForRoom(_ token: Int) -> Bool {
        room.wait(token, unacknowledged: sender.unacknowledged.count, window: sender.window)
    }

    /// `token`'s send gave up: the tokens that hold a slot now instead (see ``FailoverRoom/ended(_:unacknowledged:window:)``).
    mutating func roomWaitEnded(_ token: Int) -> [Int] {
        room.ended(token, unacknowledged: sender.unacknowledged.count, window: sender.window)
    }

    /// Acknowledgements made room: the waiting tokens that hold a slot now, oldest first.
    mutating func admitWaiting() -> [Int] {
        room.admit(unacknowledged: sender.unacknowledged.count, window: sender.window)
    }

    /// Message `seq` goes out on the link now: what to write. What was delivered is acknowledged
    /// first (piggybacked): the peer never sees an answer to a message it still thinks
    /// unacknowledged.
    mutating func sending(_ envelope: Envelope, seq: UInt64, now: Duration) -> [Envelope] {
        sentAt[seq] = now
        let ack = receiver.ackDue().map { [Envelope.ack(seq: $0)] } ?? []
        return ack + [envelope.numbered(seq)]
    }

    /// The server acknowledged through `seq`: the round trip of `seq` if it went out on this link.
    /// - Throws: ``ReliableChannelError/ackBeyondSent(seq:lastSent:)``.
    mutating func acknowledged(through seq: UInt64, now: Duration) throws(ReliableChannelError) -> Duration? {
        try sender.acknowledged(through: seq)
        defer { sentAt = sentAt.filter { $0.key > seq } }
        return sentAt[seq].map { now - $0 }
    }

    /// Message `seq` arrived.
    mutating func received(_ seq: UInt64) throws(ReliableChannelError) -> ReliableReceiver.Action {
        try receiver.received(seq)
    }

    /// The acknowledgement timer fired: what to acknowledge, if anything is new.
    mutating func ackDue() -> UInt64? { receiver.ackDue() }

    /// Whether the oldest unacknowledged message went out more than `timeout` before `now`.
    func stalled(now: Duration, timeout: Duration) -> Bool {
        guard let oldest = sender.unacknowledged.first?.seq, let sent = sentAt[oldest] else { return false }
        return now - sent > timeout
    }

    /// A link opened: the `resume` to send (counts as an acknowledgement).
    mutating func resume() -> Envelope {
        .resume(channel: channelID, received: receiver.resumePoint())
    }

    /// The server resumed the channel and received through `peerReceived`: what it missed, to
    /// write again in order, then the declines held meanwhile.
    /// - Throws: when `peerReceived` is beyond what was sent, or before what is kept.
    ///
    /// A server that lost the channel (restarted, or let it expire) takes a resume that says
    /// nothing was received for an open, and opens a new channel under the same id: it says it
    /// received nothing after acknowledging some. The channel then starts over there, what was
    /// not acknowledged numbered again from 1, and is not ``recovered`` (before, the resume
    /// failed as before the window on every attempt, or the next send hit a gap).
    mutating func resumed(peerReceived: UInt64, now: Duration) throws(ReliableChannelError) -> [Envelope] {
        let acknowledgedThrough = sender.unacknowledged.first.map { $0.seq - 1 } ?? sender.lastSent
        if openedOnServer, peerReceived == 0, acknowledgedThrough > 0 { startNewChannel(channelID) }
        recovered = openedOnServer
        openedOnServer = true
        let resend = try sender.resume(peerReceived: peerReceived)
        for (seq, _) in resend { sentAt[seq] = now }
        defer { heldDeclines = [] }
        return resend.map { $0.message.numbered($0.seq) } + heldDeclines
    }

    /// The server no longer holds the channel: a new one, `id`. What the old one had not had
    /// acknowledged is kept for it (at least once: the server may have handled some before it
    /// lost the channel), and ``recovered`` will say `false`.
    mutating func startNewChannel(_ id: String) {
        let pending = sender.unacknowledged.map(\.message)
        channelID = id
        openedOnServer = false
        sender = ReliableSender(window: sender.window)
        receiver = ReliableReceiver(ackEvery: receiver.ackEvery)
        sentAt = [:]
        heldDeclines = []  // the old channel's requests: the server no longer waits for them
        for message in pending { _ = try? sender.send(message) }
    }
}
