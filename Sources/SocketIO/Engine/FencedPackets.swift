import SocketIOProtocol

/// Packets kept back in order together with their fences (``EngineTransport/enqueue(_:afterPeerRead:)``):
/// what the upgrade holds while polling pauses, and what polling had not posted when the session
/// moved to the WebSocket. Handed on as one batch, a namespace DISCONNECT sent after a fence
/// would reach the server in the same read as the events before it, which socket.io's Node
/// server then drops.
struct FencedPackets: Sendable {
    /// Runs of packets; each run but the first was queued after a fence.
    private var runs: [[EnginePacket]] = []
    /// Whether the first run was queued after a fence too.
    private var firstFenced = false

    init() {}

    var isEmpty: Bool { runs.isEmpty }
    var count: Int { runs.reduce(0) { $0 + $1.count } }
    /// Every packet, in order, without the fences.
    var packets: [EnginePacket] { runs.flatMap { $0 } }

    mutating func append(_ packets: [EnginePacket], fenced: Bool) {
        guard !packets.isEmpty else { return }
        if runs.isEmpty {
            runs = [packets]
            firstFenced = fenced
        } else if fenced {
            runs.append(packets)
        } else {
            runs[runs.count - 1] += packets
        }
    }

    mutating func append(_ other: FencedPackets) {
        for (index, run) in other.runs.enumerated() {
            append(run, fenced: index > 0 || other.firstFenced)
        }
    }

    /// Queues them on `transport` after `first` (unfenced), each fence kept: what starts
    /// writing, as ``EngineTransport/enqueue(_:afterPeerRead:)`` returns it (the first run's).
    func enqueue(on transport: any EngineTransport, after first: [EnginePacket] = []) -> TransportWrite? {
        var write = first.isEmpty ? nil : transport.enqueue(first, afterPeerRead: false)
        for (index, run) in runs.enumerated() {
            let started = transport.enqueue(run, afterPeerRead: index > 0 || firstFenced)
            write = write ?? started
        }
        return write
    }
}
