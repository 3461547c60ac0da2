import SocketIOProtocol

/// What one namespace's cluster adapter knows: the other servers and when each was last heard
/// from, the requests waiting for their answers, the broadcasts collecting acknowledgements.
///
/// A value type: every input returns what to do, the caller does it outside the lock.
struct ClusterState {
    /// A `fetchSockets` or `serverSideEmitWithAck` waiting for every known server.
    struct Request {
        var missing: Set<String>
        var responses: [JSONValue]
        let complete: @Sendable (Result<[JSONValue], ClusterError>) -> Void
    }

    /// What a broadcast with acknowledgements is told by other servers.
    struct AckListener {
        let onCount: @Sendable (Int) -> Void
        let onAck: @Sendable (JSONValue) -> Void
    }

    /// Other servers by uid → when last heard from.
    private(set) var nodes: [String: Duration] = [:]
    private var requests: [String: Request] = [:]
    private var ackListeners: [String: AckListener] = [:]
    private(set) var closed = false
    /// The highest sequence number had from each numbering server (kept after it is forgotten,
    /// so a late copy of its messages is still recognised).
    private var sequences: [String: UInt64] = [:]
    /// Messages known lost: gaps in a server's numbering.
    private(set) var missed = 0

    /// What to do with a numbered message.
    enum Arrival: Equatable {
        case fresh
        /// Had already (a retried publish, a journal catch-up): dropped.
        case duplicate
        /// Fresh, after `count` messages of its sender that never came.
        case afterGap(Int)
    }

    /// Checks `sequence` of `uid` against what came before.
    mutating func arrival(of sequence: UInt64, from uid: String) -> Arrival {
        guard let last = sequences[uid] else {
            sequences[uid] = sequence
            return .fresh
        }
        guard sequence > last else { return .duplicate }
        sequences[uid] = sequence
        let gap = Int(sequence - last - 1)
        guard gap > 0 else { return .fresh }
        missed += gap
        return .afterGap(gap)
    }

    /// Requests to settle, listeners to call: done outside the lock.
    enum Action {
        case complete(Request, Result<[JSONValue], ClusterError>)
        case count(AckListener, Int)
        case ack(AckListener, JSONValue)
    }

    var serverCount: Int { 1 + nodes.count }

    mutating func heard(from uid: String, at now: Duration) {
        nodes[uid] = now
    }

    /// Forgets `uid` (it closed or stopped heartbeating); requests it alone held up complete.
    mutating func remove(_ uid: String) -> [Action] {
        nodes.removeValue(forKey: uid)
        var actions: [Action] = []
        for (id, var request) in requests where request.missing.remove(uid) != nil {
            if request.missing.isEmpty {
                requests.removeValue(forKey: id)
                actions.append(.complete(request, .success(request.responses)))
            } else {
                requests[id] = request
            }
        }
        return actions
    }

    /// The servers not heard from for longer than `timeout`.
    func silent(at now: Duration, timeout: Duration) -> [String] {
        nodes.filter { now - $0.value > timeout }.map(\.key)
    }

    enum Opening {
        case opened
        /// No other server is known: the request is answered at once.
        case alone
        case closed
    }

    /// Registers a request to every known server.
    mutating func open(_ id: String, responses: [JSONValue], complete: @escaping @Sendable (Result<[JSONValue], ClusterError>) -> Void) -> Opening {
        guard !closed else { return .closed }
        guard !nodes.isEmpty else { return .alone }
        requests[id] = Request(missing: Set(nodes.keys), responses: responses, complete: complete)
        return .opened
    }

    /// One server answered request `id` with `values`.
    mutating func answer(_ id: String, from uid: String, values: [JSONValue]) -> Action? {
        guard var request = requests[id], request.missing.remove(uid) != nil else { return nil }
        request.responses.append(contentsOf: values)
        guard request.missing.isEmpty else {
            requests[id] = request
            return nil
        }
        requests.removeValue(forKey: id)
        return .complete(request, .success(request.responses))
    }

    /// Request `id` is past its deadline.
    mutating func expire(_ id: String) -> Action? {
        guard let request = requests.removeValue(forKey: id) else { return nil }
        return .complete(request, .failure(.timedOut(missing: request.missing.count)))
    }

    mutating func listen(_ id: String, _ listener: AckListener) {
        ackListeners[id] = listener
    }

    mutating func stopListening(_ id: String) {
        ackListeners.removeValue(forKey: id)
    }

    func count(_ id: String, _ count: Int) -> Action? {
        ackListeners[id].map { .count($0, count) }
    }

    func ack(_ id: String, _ value: JSONValue) -> Action? {
        ackListeners[id].map { .ack($0, value) }
    }

    /// The adapter closes: every waiting request fails.
    mutating func close() -> [Action] {
        closed = true
        defer {
            requests.removeAll()
            ackListeners.removeAll()
        }
        return requests.values.map { .complete($0, .failure(.closed)) }
    }
}
