/// How far a server is in each origin's numbered cluster messages (``ClusterMessage/sequence``)
/// for one namespace: the highest number of every origin whose messages it has delivered to its
/// sockets, its own included. Origins are named by a tag, the first 8 characters of their uid.
///
/// With sessions kept in the cluster (``ClusterSessionStore``), a recoverable event's offset is
/// the frontier right after it was delivered: the client had been sent every event numbered up
/// to it from each origin, and none after. Any server can then replay from the journal what
/// comes after the offset, origin by origin.
///
/// Text form: `tag:number` pairs (number in base 36) sorted by tag and joined by `.`, e.g.
/// `1f2e3d4c:k3.90ab12cd:7`; an event that is not numbered (a `local` broadcast) adds
/// `!counter` so that every offset of a session stays unique.
struct ClusterFrontier: Sendable, Hashable {
    private(set) var seen: [String: UInt64] = [:]

    /// The tag of origin `uid`.
    static func tag(_ uid: String) -> String { ClusterMessage(uid: uid, namespace: "", type: .heartbeat).originTag }

    init() {}

    init(seen: [String: UInt64]) {
        self.seen = seen
    }

    /// Reads an offset; `nil` when it is not a cluster offset (an in-process server's counter).
    init?(offset: String) {
        let frontier = offset.split(separator: "!", maxSplits: 1, omittingEmptySubsequences: false)[0]
        var seen: [String: UInt64] = [:]
        guard !frontier.isEmpty else {
            // Nothing numbered yet: only an unnumbered event's offset (`!counter`) says so.
            guard offset.contains("!") else { return nil }
            return
        }
        for pair in frontier.split(separator: ".", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, (1...8).contains(parts[0].count),
                  let number = UInt64(parts[1], radix: 36), seen[String(parts[0])] == nil else { return nil }
            seen[String(parts[0])] = number
        }
        self.seen = seen
    }

    /// Notes message `sequence` of origin `uid` as delivered; `false` when the frontier had passed it.
    @discardableResult
    mutating func advance(_ uid: String, to sequence: UInt64) -> Bool {
        let tag = Self.tag(uid)
        guard sequence > seen[tag] ?? 0 else { return false }
        seen[tag] = sequence
        return true
    }

    /// Leaves origin `tag` out (``DeliveryOrder/Cursor/forgetQuietOrigins()``).
    mutating func forget(_ tag: String) {
        seen[tag] = nil
    }

    /// The offset naming this frontier.
    var offset: String {
        seen.sorted { $0.key < $1.key }.map { "\($0.key):\(String($0.value, radix: 36))" }.joined(separator: ".")
    }

    /// This frontier as an offset that reads back (``init(offset:)``) even when it is empty:
    /// where a session's rooms last changed (``ClusterSession/roomsOffset``).
    var position: String { offset + "!" }

    /// Whether every origin in `targets` is at least that far.
    func reaches(_ targets: [String: UInt64]) -> Bool {
        targets.allSatisfy { (seen[$0.key] ?? 0) >= $0.value }
    }

    /// The highest number of each origin in either.
    func merged(with other: ClusterFrontier) -> ClusterFrontier {
        ClusterFrontier(seen: seen.merging(other.seen, uniquingKeysWith: max))
    }
}
