import SocketIOProtocol

/// What this server asked the others and waits to hear: requests gathering one answer from
/// every server (`fetchSockets`, `serverSideEmitWithAck`) and broadcasts collecting client
/// counts and acknowledgements. A value type inside ``ClusterState``.
struct ClusterRequests {
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

    /// A request to settle (outside the lock).
    typealias Completion = (request: Request, result: Result<[JSONValue], ClusterError>)

    private var requests: [String: Request] = [:]
    private var listeners: [String: AckListener] = [:]

    /// Registers request `id` to the servers `missing`.
    mutating func open(_ id: String, to missing: Set<String>, responses: [JSONValue], complete: @escaping @Sendable (Result<[JSONValue], ClusterError>) -> Void) {
        requests[id] = Request(missing: missing, responses: responses, complete: complete)
    }

    /// Server `uid` answered request `id` with `values`; the request completes with the last answer.
    mutating func answer(_ id: String, from uid: String, values: [JSONValue]) -> Completion? {
        guard var request = requests[id], request.missing.remove(uid) != nil else { return nil }
        request.responses.append(contentsOf: values)
        guard request.missing.isEmpty else {
            requests[id] = request
            return nil
        }
        requests.removeValue(forKey: id)
        return (request, .success(request.responses))
    }

    /// Server `uid` is gone: the requests it alone held up complete with what they have.
    mutating func forget(_ uid: String) -> [Completion] {
        var completions: [Completion] = []
        for (id, var request) in requests where request.missing.remove(uid) != nil {
            if request.missing.isEmpty {
                requests.removeValue(forKey: id)
                completions.append((request, .success(request.responses)))
            } else {
                requests[id] = request
            }
        }
        return completions
    }

    /// Request `id` fails with `error` (its deadline passed, its message was not published).
    mutating func fail(_ id: String, _ error: ClusterError) -> Completion? {
        requests.removeValue(forKey: id).map { ($0, .failure(error)) }
    }

    /// Request `id` is past its deadline: it fails with how many servers did not answer.
    mutating func expire(_ id: String) -> Completion? {
        requests.removeValue(forKey: id).map { ($0, .failure(.timedOut(missing: $0.missing.count))) }
    }

    mutating func listen(_ id: String, _ listener: AckListener) {
        listeners[id] = listener
    }

    mutating func stopListening(_ id: String) {
        listeners.removeValue(forKey: id)
    }

    /// The listener of broadcast `id`, while it listens.
    func listener(_ id: String) -> AckListener? {
        listeners[id]
    }

    /// Every request fails with `error`; the listeners stop.
    mutating func close(_ error: ClusterError) -> [Completion] {
        defer {
            requests.removeAll()
            listeners.removeAll()
        }
        return requests.values.map { ($0, .failure(error)) }
    }
}
