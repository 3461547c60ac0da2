import DequeModule
import SocketIOProtocol

/// socket.io's at-least-once queue (`retries`), as a value type: emits wait in order, only the
/// head is in flight, a failed try is sent again until acknowledged or out of tries.
///
/// Each try is a fresh emit with its own ack id; the owner sends it and reports the outcome with
/// the try's ``Entry/sequence`` and ``Entry/tries``, so a late answer to an older try is ignored.
struct RetryQueue: Sendable {
    struct Entry: Sendable {
        let sequence: Int
        let event: String
        let items: [JSONValue]
        let timeout: Duration
        let retries: Int
        /// Tries sent so far.
        var tries = 0
        /// Whether a try is in flight.
        var pending = false
    }

    enum Action: Sendable {
        /// Send this try of the head now.
        case send(Entry)
        /// The head is done: tell its caller, then drain again.
        case finish(sequence: Int, Result<[JSONValue], SocketIOError>)
        case none
    }

    private(set) var entries: Deque<Entry> = []
    private var nextSequence = 0

    /// Adds an emit at the tail; returns its sequence number.
    mutating func enqueue(event: String, items: [JSONValue], timeout: Duration, retries: Int) -> Int {
        defer { nextSequence += 1 }
        entries.append(Entry(sequence: nextSequence, event: event, items: items, timeout: timeout, retries: max(retries, 0)))
        return nextSequence
    }

    /// The next try to send, if connected and the head is not in flight (`force`: resend the
    /// head even if a try is in flight — after a reconnect its answer cannot arrive).
    mutating func drain(connected: Bool, force: Bool) -> Action {
        guard connected, var head = entries.first else { return .none }
        if head.pending && !force { return .none }
        head.pending = true
        head.tries += 1
        entries[entries.startIndex] = head
        return .send(head)
    }

    /// Try number `tries` of `sequence` ended with `result`.
    mutating func tryEnded(sequence: Int, tries: Int, result: Result<[JSONValue], SocketIOError>) -> Action {
        guard var head = entries.first, head.sequence == sequence, head.tries == tries else { return .none }
        switch result {
        case .success:
            entries.removeFirst()
            return .finish(sequence: sequence, result)
        case .failure:
            if head.tries > head.retries {
                entries.removeFirst()
                return .finish(sequence: sequence, result)
            }
            head.pending = false
            entries[entries.startIndex] = head
            return .none
        }
    }

    /// Takes an emit out (its caller gave up). Returns whether it was the head in flight (then
    /// the next one may go).
    mutating func remove(sequence: Int) -> Bool {
        guard let index = entries.firstIndex(where: { $0.sequence == sequence }) else { return false }
        let wasHead = index == entries.startIndex
        entries.remove(at: index)
        return wasHead
    }

    /// Empties the queue (final disconnect); returns the sequences whose callers must be told.
    mutating func removeAll() -> [Int] {
        defer { entries.removeAll() }
        return entries.map(\.sequence)
    }
}
