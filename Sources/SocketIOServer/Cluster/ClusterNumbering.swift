/// The other servers' message numbering in one namespace's cluster, as a value
/// (``ClusterState`` keeps it): the highest number had from each sender, so that a message had
/// already (a retried publish, a journal catch-up) is recognised and a gap is counted.
///
/// A sender's number is kept after it is forgotten as a server, for the last
/// ``forgottenKept`` senders forgotten: a late copy of its messages is still recognised, and
/// every server that ever published here (a new uid at every restart of every server) does not
/// stay for as long as this one runs.
struct ClusterNumbering {
    /// How many forgotten senders' numbers are kept. A late copy comes from a journal catch-up
    /// after a lost listening connection, when every server looks silent at once: far fewer.
    static var forgottenKept: Int { 1_000 }

    /// The highest number had from each sender.
    private(set) var last: [String: UInt64] = [:]
    /// The forgotten senders whose numbers ``last`` keeps, the longest forgotten first.
    private(set) var forgotten: [String] = []
    /// Messages known lost: gaps in the numbering (saturating at `Int.max`).
    private(set) var missed = 0

    /// Message number `sequence` of `sender` arrived: how many of the sender's messages never
    /// came before it, or `nil` when it came already.
    mutating func arrived(_ sequence: UInt64, from sender: String) -> Int? {
        var gap = 0
        if let previous = last[sender] {
            guard sequence > previous else { return nil }
            gap = Int(sequence - previous - 1)
            // Saturating: each sender may skip up to 2^53 numbers, and senders are many.
            let sum = missed.addingReportingOverflow(gap)
            missed = sum.overflow ? Int.max : sum.partialValue
        }
        last[sender] = sequence
        return gap
    }

    /// `sender` is forgotten as a server; its number is kept among the last ``forgottenKept``.
    /// `isKnown` says whether a sender is a known server again (then it keeps its number).
    mutating func forget(_ sender: String, isKnown: (String) -> Bool) {
        guard last[sender] != nil else { return }
        forgotten.removeAll { $0 == sender }
        forgotten.append(sender)
        guard forgotten.count > Self.forgottenKept else { return }
        let oldest = forgotten.removeFirst()
        if !isKnown(oldest) { last[oldest] = nil }
    }
}
