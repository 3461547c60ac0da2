import SwitchboardCore
public import SocketIOProtocol

extension DriverConnection {
    // MARK: - Send

    /// Sends `event` now when connected, else queues it (``ConnectionError/queueFull(limit:)`` past the queue's bound).
    public func send(_ event: String, _ payload: JSONValue) async throws {
        let direct = try read { machine in Result { () throws(ConnectionError) in try machine.sendDirectly() } }.get()
        if direct {
            do {
                try await driver.send(event, payload)
                return
            } catch DriverError.notConnected {
                // The transport went down since the state said connected: queue it below.
            } catch {
                throw ConnectionError(driverFailure: error)
            }
        }
        let id = transition { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result = transition { machine -> Result<Bool, ConnectionError> in
                    Result { () throws(ConnectionError) in try machine.enqueueSend(id, event, payload, waiter: continuation) }
                }
                switch result {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(let flush): if flush { startFlush() }
                }
                if Task.isCancelled { cancelQueuedSend(id) }
            }
        } onCancel: {
            self.cancelQueuedSend(id)
        }
    }

    /// A cancelled caller's send leaves the queue (once handed to the driver it goes on).
    private func cancelQueuedSend(_ id: UInt64) {
        transition { $0.cancelSend(id) }?.resume(throwing: ConnectionError.cancelled)
    }

    // MARK: - Request

    /// Sends a request and waits at most `timeout` for its response, queued while not connected (the timeout runs meanwhile).
    public func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        let stopwatch = Timeline(clock)
        let id = transition { $0.makeID() }
        // The deadline counts from the call, queued or not, on the shared timer of `replies`;
        // when it passes, the request leaves the queue (or is abandoned by the driver) and the
        // caller hears `timedOut`.
        let deadline = PendingReplies<UInt64, Response, ConnectionError>.Deadline(after: timeout, on: stopwatch) { [weak self] id in
            self?.transition { $0.finishRequest(id) }?.endDriverRequest?()
            return .timedOut(event: event, after: timeout)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                // The caller waits in `replies` before the machine knows the request, so whatever
                // ends the request from then on (an answer, a close, a release) answers it.
                replies.add(id, deadline: deadline) { continuation.resume(with: $0.mapError { $0 as any Error }) }
                let request = Machine.PendingRequest(event: event, payload: payload, timeout: timeout, stopwatch: stopwatch)
                let result = transition { machine -> Result<Machine.RequestStart, ConnectionError> in
                    // Its deadline may have passed already (a zero timeout): then it is not kept.
                    guard replies.contains(id) else { return .failure(.cancelled) }
                    return Result { () throws(ConnectionError) in try machine.request(id, request) }
                }
                switch result {
                case .failure(let error), .success(.expired(let error)):
                    replies.settle(id, with: .failure(error))
                case .success(.direct(let request)):
                    startDriverRequest(request)
                case .success(.queued(let flush)):
                    if flush { startFlush() }
                }
                if Task.isCancelled { finishRequest(id, .failure(.cancelled)) }
            }
        } onCancel: {
            self.finishRequest(id, .failure(.cancelled))
        }
    }

    /// Hands a claimed request to the driver (``ConnectionDriver/start(_:complete:)``); `done`
    /// runs once the driver is finished with it: `false` when the flush carrying it ends there
    /// (the driver refused it, and it went back to the queue).
    func startDriverRequest(_ request: Machine.DriverRequest, done: (@Sendable (_ goOn: Bool) -> Void)? = nil) {
        let end = driver.start(request) { [weak self] end in
            let goOn = self?.driverRequestEnded(request, end) ?? false
            done?(goOn)
        }
        switch transition({ $0.requestStarted(request, end: end) }) {
        case .carried:
            break
        case .gone:
            end()
        case .lost(let lost):
            fail([request.id: lost], with: .connectionLost("the transport closed as the request was sent"))
            end()
        }
    }

    /// The driver is finished with `request`: `false` when it refused it and the flush carrying
    /// it ends.
    private func driverRequestEnded(_ request: Machine.DriverRequest, _ end: DriverRequestEnd) -> Bool {
        switch end {
        case .finished(let result):
            finishRequest(request.id, result)
            return true
        case .refused:
            switch transition({ $0.requestRefused(request) }) {
            case .ended:
                return true
            case .requeued(let endsFlush, let flush):
                if flush { startFlush() }
                return !endsFlush
            }
        }
    }

    /// Answers request `id`'s caller, once (later results for it are ignored), then ends the
    /// driver's part.
    func finishRequest(_ id: UInt64, _ result: Result<Response, ConnectionError>) {
        let request = transition { $0.finishRequest(id) }
        replies.settle(id, with: result)
        request?.endDriverRequest?()
    }

    /// Answers the callers of these requests (already taken out of the machine), then ends the
    /// driver's part: ended first, the driver's own failure (its task cancelled) could reach the
    /// caller before `error` did.
    func fail(_ requests: [UInt64: Machine.PendingRequest], with error: ConnectionError) {
        for (id, request) in requests {
            replies.settle(id, with: .failure(error))
            request.endDriverRequest?()
        }
    }

    /// Runs the queue (``CommandFlush``). Only the caller that claimed the flush
    /// (``DriverConnectionStateMachine/claimFlush()``) starts one.
    func startFlush() {
        Task { await CommandFlush(connection: self).run() }
    }
}
