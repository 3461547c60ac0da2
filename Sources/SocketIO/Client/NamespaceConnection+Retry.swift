import NIOConcurrencyHelpers
import SocketIOProtocol

extension NamespaceConnection {
    /// Queues an at-least-once emit and starts it if it is first; returns its sequence number.
    /// Throws ``SocketIOError/notConnected`` when not connected with `sendBufferLimit` queued.
    func enqueueRetrying(
        _ event: String, items: [JSONValue], timeout: Duration, retries: Int,
        complete: @escaping @Sendable (Result<[JSONValue], SocketIOError>) -> Void
    ) throws(SocketIOError) -> Int {
        let queued = transition { $0.enqueueRetrying(event, items: items, timeout: timeout, retries: retries, caller: complete) }
        guard let sequence = queued else { throw .notConnected }
        drainRetryQueue(force: false)
        return sequence
    }

    /// Sends the head of the retry queue if it may go now.
    func drainRetryQueue(force: Bool) {
        let action = transition { $0.drainRetries(force: force) }
        perform(action)
    }

    private func perform(_ action: RetryQueue.Action) {
        switch action {
        case .none:
            return
        case .send(let entry):
            let (sequence, tries) = (entry.sequence, entry.tries)
            sendWithAck(entry.event, items: entry.items, timeout: entry.timeout) { [weak self] result in
                self?.retryTryEnded(sequence: sequence, tries: tries, result: result)
            }
        case .finish(let sequence, let result):
            let caller = transition { $0.takeRetryCaller(sequence) }
            caller?(result)
            drainRetryQueue(force: false)
        }
    }

    private func retryTryEnded(sequence: Int, tries: Int, result: Result<[JSONValue], SocketIOError>) {
        let action = transition { $0.retryQueue.tryEnded(sequence: sequence, tries: tries, result: result) }
        switch action {
        case .none:
            // A failed try that has tries left goes again at once while connected; otherwise
            // after the next CONNECT reply.
            drainRetryQueue(force: false)
        case .send, .finish:
            perform(action)
        }
    }

    /// The caller of `sequence` stopped waiting: take it out and tell it.
    func cancelRetrying(_ sequence: Int) {
        let (wasHead, caller) = transition { $0.cancelRetrying(sequence) }
        caller?(.failure(.ackTimeout))
        if wasHead { drainRetryQueue(force: false) }
    }

    /// No connection is coming for the queue (the app disconnected, reconnection gave up or is
    /// off): every queued emit's caller hears it.
    func failRetryQueue(with error: SocketIOError) {
        let callers = transition { $0.failRetries() }
        for caller in callers { caller(.failure(error)) }
    }
}
