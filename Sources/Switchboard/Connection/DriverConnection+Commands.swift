import SwitchboardCore
import NIOConcurrencyHelpers
public import SocketIOProtocol

extension DriverConnection {
    // MARK: - Send

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

    public func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        let stopwatch = Timeline(clock)
        let id = inner.withLockedValue { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let request = PendingRequest(
                    event: event, payload: payload, timeout: timeout, stopwatch: stopwatch, continuation: continuation
                )
                let result = inner.withLockedValue { inner -> Result<(direct: Bool, flush: Bool), ConnectionError> in
                    do throws(ConnectionError) {
                        _ = try inner.machine.command(.request)
                        if inner.canExecuteDirectly {
                            inner.requests[id] = request
                            return .success((true, false))
                        }
                        try inner.enqueue(.request, id: id)
                        inner.requests[id] = request
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
                    startDeadline(id, event: event, timeout: timeout)
                    if start.direct { startDriverRequest(id) }
                    if start.flush { startFlush() }
                }
                if Task.isCancelled { finishRequest(id, .failure(.cancelled)) }
            }
        } onCancel: {
            self.finishRequest(id, .failure(.cancelled))
        }
    }

    /// Fails the request when its deadline (counted from the call) passes, queued or not.
    private func startDeadline(_ id: UInt64, event: String, timeout: Duration) {
        let clock = self.clock
        let timer = Task { [weak self] in
            do {
                try await clock.sleep(for: timeout)
            } catch {
                return  // answered first: the timer was cancelled
            }
            self?.finishRequest(id, .failure(.timedOut(event: event, after: timeout)))
        }
        let stored = inner.withLockedValue { inner -> Bool in
            guard inner.requests[id] != nil else { return false }
            inner.requests[id]?.timer = timer
            return true
        }
        if !stored { timer.cancel() }
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
        request?.finish(result)
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
