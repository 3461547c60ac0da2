import DequeModule

/// The server side of HTTP long-polling for one session, as a value type: the packets waiting
/// for the client's next GET, the GET being held, and whether a POST is being read.
///
/// At most one GET and one POST may be open per session (the JS server closes the session on a
/// duplicate). The buffer is bounded in bytes: a client that stops polling while the app keeps
/// emitting overflows it, and the owner closes the session instead of growing without bound.
/// A response carries at most ``PollingLimits/maxFramesPerResponse`` packets, because
/// python-engineio's client drops the connection when a body holds more than 16.
struct PollingBuffer<Waiter> {
    typealias Limits = PollingLimits

    let limits: Limits
    private(set) var frames: Deque<EngineFrame> = []
    private(set) var bufferedBytes = 0
    /// The GET being held until there is something to send.
    private(set) var waiter: Waiter?
    /// How many GETs were held so far: the number of the one held now, if any.
    private(set) var held = 0
    /// Whether a POST is being read.
    private(set) var posting = false

    init(limits: Limits) {
        self.limits = limits
    }

    var isEmpty: Bool { frames.isEmpty }

    /// Queues frames. Returns `false`, queuing nothing, when they would pass the byte limit.
    mutating func append(_ new: [EngineFrame]) -> Bool {
        let size = new.reduce(0) { $0 + $1.size }
        guard bufferedBytes + size <= limits.maxBufferedBytes else { return false }
        frames.append(contentsOf: new)
        bufferedBytes += size
        return true
    }

    /// Queues frames whatever the limit (the final `close` of a session).
    mutating func appendUnbounded(_ new: [EngineFrame]) {
        frames.append(contentsOf: new)
        bufferedBytes += new.reduce(0) { $0 + $1.size }
    }

    /// The frames for one response, oldest first, at most ``PollingLimits/maxFramesPerResponse``.
    mutating func takeResponse() -> [EngineFrame] {
        let count = min(frames.count, max(1, limits.maxFramesPerResponse))
        return take(count)
    }

    /// Every queued frame (when the session moves to a WebSocket or closes).
    mutating func takeAll() -> [EngineFrame] {
        take(frames.count)
    }

    private mutating func take(_ count: Int) -> [EngineFrame] {
        var taken: [EngineFrame] = []
        taken.reserveCapacity(count)
        for _ in 0..<count {
            guard let frame = frames.popFirst() else { break }
            bufferedBytes -= frame.size
            taken.append(frame)
        }
        return taken
    }

    /// Holds `waiter` as the open GET; returns the GET it replaces, if any (a duplicate).
    mutating func hold(_ waiter: Waiter) -> Waiter? {
        held += 1
        defer { self.waiter = waiter }
        return self.waiter
    }

    /// Takes the held GET, if any.
    mutating func takeWaiter() -> Waiter? {
        defer { waiter = nil }
        return waiter
    }

    /// Marks a POST as being read; `false` when one already is (a duplicate).
    mutating func beginPost() -> Bool {
        guard !posting else { return false }
        posting = true
        return true
    }

    mutating func endPost() {
        posting = false
    }
}

/// The bounds of one session's polling buffer.
struct PollingLimits: Sendable, Hashable {
    /// Bytes that may wait for a GET before the session is closed.
    var maxBufferedBytes: Int
    /// Packets per GET response; the rest waits for the next GET.
    var maxFramesPerResponse: Int
}

extension PollingBuffer: Sendable where Waiter: Sendable {}
