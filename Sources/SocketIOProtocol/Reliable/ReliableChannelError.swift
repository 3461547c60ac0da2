/// What goes wrong on a reliable channel (SPEC.md part E): the peer broke the sequence rules, or
/// the sender's window is full. Typed, never a crash; the channel closes or the caller is told.
public enum ReliableChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `window` messages wait for the peer's acknowledgement: nothing more is taken until it
    /// acknowledges some (``ReliableSender/window``). Nothing was dropped.
    case windowFull(window: Int)
    /// The peer acknowledged `seq`, which was never sent (the last was `lastSent`).
    case ackBeyondSent(seq: UInt64, lastSent: UInt64)
    /// The peer says it received up to `seq`, which was never sent (the last was `lastSent`).
    case resumeBeyondSent(seq: UInt64, lastSent: UInt64)
    /// The peer skipped ahead: `seq` arrived where `expected` was due (a message was lost without
    /// a resume in between).
    case gap(expected: UInt64, got: UInt64)
    /// The channel is gone (it expired, or was never opened here).
    case channelGone
    /// The peer resumed from `received`, but the messages after it were already acknowledged and
    /// dropped (`firstKept` is the oldest still held): the channel cannot continue.
    case resumeBeforeWindow(received: UInt64, firstKept: UInt64)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .windowFull(let window): "\(window) messages wait for the peer's acknowledgement"
        case .channelGone: "the channel is gone (expired)"
        case .ackBeyondSent(let seq, let last): "acknowledgement of \(seq), but the last message sent was \(last)"
        case .resumeBeyondSent(let seq, let last): "resume from \(seq), but the last message sent was \(last)"
        case .gap(let expected, let got): "message \(got) arrived where \(expected) was due"
        case .resumeBeforeWindow(let received, let first): "resume from \(received), but the oldest message kept is \(first)"
        }
    }
}
