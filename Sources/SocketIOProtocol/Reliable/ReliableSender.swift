/// The sending half of a reliable channel, as a value type: numbers each message, keeps it until
/// the peer acknowledges it, and hands back what to send again after a transport switch.
///
/// Sequence numbers start at 1 (`0` means "nothing yet" in acks and resumes) and grow by one per
/// message, across every transport the channel uses. The window bounds memory: past
/// ``window`` unacknowledged messages ``send(_:)`` throws ``ReliableChannelError/windowFull(window:)``
/// (nothing is dropped silently). Acknowledgements are cumulative: `ack(seq)` releases every
/// message up to and including `seq`.
///
/// ```swift
/// var sender = ReliableSender<String>(window: 1_000)
/// let one = try sender.send("a")            // 1
/// let two = try sender.send("b")            // 2
/// try sender.acknowledged(through: 1)       // "a" released
/// let again = try sender.resume(peerReceived: 1)   // [(2, "b")]: send it again
/// ```
public struct ReliableSender<Message: Sendable>: Sendable {
    /// The most messages that may wait for an acknowledgement.
    public let window: Int
    /// The number the next message gets.
    public private(set) var nextSeq: UInt64 = 1
    /// The messages not yet acknowledged, oldest first.
    public private(set) var unacknowledged: [(seq: UInt64, message: Message)] = []

    /// A sender keeping at most `window` messages unacknowledged.
    public init(window: Int) {
        self.window = max(window, 1)
    }

    /// The number of the last message sent (0 before the first).
    public var lastSent: UInt64 { nextSeq - 1 }

    /// Numbers `message` and keeps it until acknowledged; returns its sequence number.
    public mutating func send(_ message: Message) throws(ReliableChannelError) -> UInt64 {
        guard unacknowledged.count < window else { throw .windowFull(window: window) }
        let seq = nextSeq
        nextSeq += 1
        unacknowledged.append((seq, message))
        return seq
    }

    /// The peer holds every message up to and including `seq`: they are released. Returns how
    /// many were. An old acknowledgement (already covered) changes nothing.
    @discardableResult
    public mutating func acknowledged(through seq: UInt64) throws(ReliableChannelError) -> Int {
        guard seq <= lastSent else { throw .ackBeyondSent(seq: seq, lastSent: lastSent) }
        let released = unacknowledged.prefix { $0.seq <= seq }.count
        unacknowledged.removeFirst(released)
        return released
    }

    /// A new transport is up and the peer says it received everything up to `peerReceived`:
    /// releases those, and returns the rest, to be sent again in order.
    public mutating func resume(peerReceived: UInt64) throws(ReliableChannelError) -> [(seq: UInt64, message: Message)] {
        guard peerReceived <= lastSent else { throw .resumeBeyondSent(seq: peerReceived, lastSent: lastSent) }
        if let first = unacknowledged.first, peerReceived + 1 < first.seq {
            throw .resumeBeforeWindow(received: peerReceived, firstKept: first.seq)
        }
        try acknowledged(through: peerReceived)
        return unacknowledged
    }
}
