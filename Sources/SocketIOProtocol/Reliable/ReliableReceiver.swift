/// The receiving half of a reliable channel, as a value type: delivers numbered messages once
/// each and in order, drops repeats, reports gaps, and decides when to acknowledge.
///
/// Acknowledgements are cumulative and batched: one after every ``ackEvery`` delivered messages,
/// or, for fewer, once the owner's short timer fires (``ackDue()``) — never one per message.
/// A repeat (a message sent again after a switch that had arrived before) is acknowledged at once,
/// so the sender stops resending it.
public struct ReliableReceiver: Sendable {
    /// Acknowledge after this many delivered messages without waiting for the timer.
    public let ackEvery: Int
    /// The highest sequence number delivered, in order (0 before the first).
    public private(set) var delivered: UInt64 = 0
    /// The highest sequence number acknowledged to the peer.
    public private(set) var acknowledged: UInt64 = 0

    /// A receiver that asks for an acknowledgement after every `ackEvery` messages delivered.
    public init(ackEvery: Int = 32) {
        self.ackEvery = max(ackEvery, 1)
    }

    /// What to do with an arriving message.
    public enum Action: Sendable, Hashable {
        /// Hand the message to the app; then acknowledge through `ack` now, if set, or (when
        /// `startTimer`) start the short acknowledgement timer unless it runs.
        case deliver(ack: UInt64?, startTimer: Bool)
        /// Seen before: drop it; acknowledge through `ack` so the sender stops sending it.
        case duplicate(ack: UInt64)
    }

    /// Message `seq` arrived.
    public mutating func received(_ seq: UInt64) throws(ReliableChannelError) -> Action {
        if seq <= delivered {
            acknowledged = delivered
            return .duplicate(ack: delivered)
        }
        guard seq == delivered + 1 else { throw .gap(expected: delivered + 1, got: seq) }
        delivered = seq
        if delivered - acknowledged >= UInt64(ackEvery) {
            acknowledged = delivered
            return .deliver(ack: delivered, startTimer: false)
        }
        return .deliver(ack: nil, startTimer: true)
    }

    /// The acknowledgement timer fired: what to acknowledge, if anything is new.
    public mutating func ackDue() -> UInt64? {
        guard delivered > acknowledged else { return nil }
        acknowledged = delivered
        return delivered
    }

    /// A new transport is up: what to tell the peer we received (it resends the rest). Counts as
    /// an acknowledgement.
    public mutating func resumePoint() -> UInt64 {
        acknowledged = delivered
        return delivered
    }
}
