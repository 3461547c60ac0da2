import SwitchboardCore
import NIOConcurrencyHelpers
public import SocketIOProtocol

extension DriverConnection {
    // MARK: - Send

    /// Sends `event` now when connected, else queues it (``ConnectionError/queueFull(limit:)`` past the queue's bound).
    public func send(_ event: String, _ payload: JSONValue) async throws {
        let direct = try inner.withLockedValue { inner -> Result<Bool, ConnectionError> in
            do throws(ConnectionError) {
                _ = try inner.machine.command(.send)
                return .success(inner.canExecuteDirectly)
            } catch {
                return .failure(error)
            }
        }.get()
        if direct {
            do {
                try await driver.send(event, payload)
                return
            } catch DriverError.notConnected {
                // The transport went down since the state said connected: queue it below.
            } catch {
                throw Self.commandError(error)
            }
        }
        let id = inner.withLockedValue { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result = inner.withLockedValue { inner -> Result<Bool, ConnectionError> in
                    do throws(ConnectionError) {
                        _ = try inner.machine.command(.send)
                        try inner.enqueue(.send(event, payload, continuation), id: id)
                        return .success(inner.claimFlush())
                    } catch {
                        return .failure(error)
                    }
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
        let command = inner.withLockedValue { $0.removeQueued(id) }
        if case .send(_, _, let continuation) = command {
            continuation.resume(throwing: ConnectionError.cancelled)
        }
    }

    // MARK: - Request

    /// Sends a request and waits at most `timeout` for its response, queued while not connected (the timeout runs meanwhile).
    public func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        let stopwatch = Timeline(clock)
        let id = inner.withLockedValue { $0.makeID() }
        // The deadline counts from the call, queued or not; when it passes, the request leaves
        // the queue (or is abandoned by the driver) and the caller hears `timedOut`.
        let deadline = PendingReplies<UInt64, Response, ConnectionError>.Deadline(after: timeout, on: stopwatch) { [weak self] id in
            let request = self?.inner.withLockedValue { inner -> PendingRequest? in
                _ = inner.removeQueued(id)
                return inner.requests.removeValue(forKey: id)
            }
            request?.driverTask?.cancel()
            return .timedOut(event: event, after: timeout)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let request = PendingRequest(event: event, payload: payload, timeout: timeout, stopwatch: stopwatch)
                // The caller waits in `replies` before the lock is let go, so whatever ends the
                // request from then on (a close, a release) answers it.
                let answer: PendingReplies<UInt64, Response, ConnectionError>.Completion = {
                    continuation.resume(with: $0.mapError { $0 as any Error })
                }
                let result = inner.withLockedValue { inner -> Result<(direct: Bool, flush: Bool), ConnectionError> in
                    do throws(ConnectionError) {
                        _ = try inner.machine.command(.request)
                        if inner.canExecuteDirectly {
                            inner.requests[id] = request
                            replies.add(id, deadline: deadline, complete: answer)
                            return .success((true, false))
                        }
                        try inner.enqueue(.request, id: id)
                        inner.requests[id] = request
                        replies.add(id, deadline: deadline, complete: answer)
                        return .success((false, inner.claimFlush()))
                    } catch {
                        return .failure(error)
                    }
                }
                switch result {
                case .failure(let error):
                    continuation.resume(throwing: error)
                    return
                case .success(let start):
                    if start.direct { startDriverRequest(id) }
                    if start.flush { startFlush() }
                }
                if Task.isCancelled { finishRequest(id, .failure(.cancelled)) }
            }
        } onCancel: {
            self.finishRequest(id, .failure(.cancelled))
        }
    }

    /// Hands request `id` to the driver with what is left of its deadline. Returns the task that
    /// ends when the driver is done with it (`nil` if the request already finished).
    @discardableResult
    func startDriverRequest(_ id: UInt64) -> Task<Void, Never>? {
        let claimed = inner.withLockedValue { inner -> (String, JSONValue, Duration, Duration)? in
            guard var request = inner.requests[id] else { return nil }
            request.inFlight = true
            inner.requests[id] = request
            return (request.event, request.payload, request.timeout, request.timeout - request.stopwatch.now())
        }
        guard let (event, payload, timeout, remaining) = claimed else { return nil }
        guard remaining > .zero else {
            finishRequest(id, .failure(.timedOut(event: event, after: timeout)))
            return nil
        }
        let driver = self.driver
        let task = Task { [weak self] in
            let result: Result<Response, ConnectionError>
            do {
                result = .success(try await driver.request(event, payload, timeout: remaining))
            } catch {
                result = .failure(Self.commandError(error))
            }
            self?.finishRequest(id, result)
        }
        let stored = inner.withLockedValue { inner -> Bool in
            guard inner.requests[id] != nil else { return false }
            inner.requests[id]?.driverTask = task
            return true
        }
        if !stored { task.cancel() }
        return task
    }

    /// Answers request `id`'s caller, once; later results for it are ignored.
    func finishRequest(_ id: UInt64, _ result: Result<Response, ConnectionError>) {
        let request = inner.withLockedValue { inner -> PendingRequest? in
            guard let request = inner.requests.removeValue(forKey: id) else { return nil }
            _ = inner.removeQueued(id)
            return request
        }
        request?.driverTask?.cancel()
        replies.settle(id, with: result)
    }

    /// Answers the callers of these requests (already taken out of ``Inner/requests``).
    func fail(_ requests: [UInt64: PendingRequest], with error: ConnectionError) {
        for (id, request) in requests {
            request.driverTask?.cancel()
            replies.settle(id, with: .failure(error))
        }
    }

    static func commandError(_ error: any Error) -> ConnectionError {
        switch error {
        case let error as ConnectionError: error
        case is CancellationError: .cancelled
        default: .driverFailed("\(error)")
        }
    }

    // MARK: - Flush

    /// Runs the queue, oldest first, one command at a time, while connected. Only the caller that
    /// claimed the flush (``Inner/claimFlush()``) starts one.
    func startFlush() {
        Task { await self.flush() }
    }

    private func flush() async {
        while true {
            let next = inner.withLockedValue { inner -> (id: UInt64, command: QueuedCommand)? in
                guard case .connected = inner.machine.state, let next = inner.popQueued() else {
                    inner.flushing = false
                    return nil
                }
                return next
            }
            guard let (id, command) = next else { return }
            switch command {
            case .send(let event, let payload, let continuation):
                do {
                    try await driver.send(event, payload)
                    continuation.resume()
                } catch DriverError.notConnected {
                    // The transport dropped under the flush: first in line for the next connection.
                    inner.withLockedValue { inner in
                        inner.putBackQueued(command, id: id)
                        inner.flushing = false
                    }
                    return
                } catch {
                    continuation.resume(throwing: Self.commandError(error))
                }
            case .request:
                await startDriverRequest(id)?.value
            }
        }
    }
}
