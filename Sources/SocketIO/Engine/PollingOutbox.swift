import DequeModule
import SocketIOProtocol

/// Packets waiting to be posted, and the fences a POST must not span: the packets from a
/// fence on go in a later POST than those before (POSTs are sequential, each answered after
/// the server read it).
///
/// A pong is queued once: one not yet posted answers every ping that comes before it goes, so
/// a server that sends pings faster than we post (a GET body of millions of `2`s) cannot grow
/// the outbox without end.
struct PollingOutbox: Sendable {
    private var packets = Deque<EnginePacket>()
    private var fences = Deque<Int>()
    /// The data of the pongs queued and not yet taken.
    private var queuedPongs: Set<String> = []

    var isEmpty: Bool { packets.isEmpty }

    mutating func append(_ more: [EnginePacket], fenced: Bool) {
        if fenced && !packets.isEmpty { fences.append(packets.count) }
        for packet in more {
            if case .pong(let data) = packet, !queuedPongs.insert(data).inserted { continue }
            packets.append(packet)
        }
    }

    /// Takes packets for one POST: at most `maxPackets` (and none past a fence), at most
    /// `maxBytes` of body (at least one); `nil` when empty.
    mutating func takeBatch(maxPackets: Int, maxBytes: Int, version: EngineIOVersion) -> [EnginePacket]? {
        guard !packets.isEmpty else { return nil }
        let limit = min(maxPackets, fences.first ?? .max)
        let batch = Self.takeBatch(from: &packets, maxPackets: limit, maxBytes: maxBytes, version: version)
        for case .pong(let data) in batch { queuedPongs.remove(data) }
        for index in fences.indices { fences[index] -= batch.count }
        while let first = fences.first, first <= 0 { fences.removeFirst() }
        return batch
    }

    /// Everything not yet posted, with its fences (the session moves to another transport).
    mutating func takeAll() -> FencedPackets {
        defer { removeAll() }
        var taken = FencedPackets()
        var start = 0
        for end in fences + [packets.count] where end > start {
            taken.append(Array(packets[start..<end]), fenced: start > 0)
            start = end
        }
        return taken
    }

    mutating func removeAll() {
        packets.removeAll()
        fences.removeAll()
        queuedPongs.removeAll()
    }

    /// Takes packets for one POST: at most `maxPackets`, and at most `maxBytes` of body (at least one).
    static func takeBatch(from outbox: inout Deque<EnginePacket>, maxPackets: Int, maxBytes: Int,
                          version: EngineIOVersion) -> [EnginePacket] {
        var batch: [EnginePacket] = []
        var bytes = 0
        while let packet = outbox.first, batch.count < maxPackets {
            let size = packet.encodedText(version: version).utf8.count + (version == .v3 ? 8 : 1)
            if !batch.isEmpty && bytes + size > maxBytes { break }
            batch.append(outbox.removeFirst())
            bytes += size
        }
        return batch
    }
}
