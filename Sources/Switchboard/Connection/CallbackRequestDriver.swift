import SocketIOProtocol

/// A driver of ours whose requests need neither a deadline nor a task of their own: its
/// ``DriverConnection`` keeps the request's one deadline (in its replies) and ends the request
/// through the returned closure when the deadline passes or the caller is cancelled. Drivers
/// written by others go through ``ConnectionDriver/request(_:_:timeout:)``, with a task and
/// their own timeout, as before.
protocol CallbackRequestDriver: ConnectionDriver {
    /// Sends one event that asks for a reply. `complete` hears the reply or the failure exactly
    /// once, never under the driver's locks — also after the returned closure ended the
    /// request (then with a failure the connection ignores). `timeout` is the caller's, for
    /// error messages only. When the transport is down and nothing was written, `complete`
    /// hears ``DriverError/notConnected`` before this returns: the connection keeps the request
    /// for the next connection.
    func startRequest(
        _ event: String, _ payload: JSONValue, timeout: Duration,
        complete: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> @Sendable () -> Void
}

/// How a request handed to a driver ended.
enum DriverRequestEnd: Sendable {
    /// Answered, or failed (the error as its caller hears it).
    case finished(Result<Response, ConnectionError>)
    /// Refused with ``DriverError/notConnected``: nothing was written, so it can go again.
    case refused

    init(_ result: Result<Response, any Error>) {
        switch result {
        case .success(let response): self = .finished(.success(response))
        case .failure(DriverError.notConnected): self = .refused
        case .failure(let error): self = .finished(.failure(ConnectionError(driverFailure: error)))
        }
    }
}

extension ConnectionDriver {
    /// Hands `request` to the driver; `complete` hears its end once. Returns what ends the
    /// driver's part (when the request's deadline passes or its caller is cancelled first).
    ///
    /// A ``CallbackRequestDriver`` takes it as it is: the deadline in the connection's replies
    /// is the request's only one. Any other driver gets a task and what is left of the deadline
    /// as its `timeout`.
    func start(
        _ request: CommandLane<some Sendable>.DriverRequest,
        complete: @escaping @Sendable (DriverRequestEnd) -> Void
    ) -> @Sendable () -> Void {
        if let driver = self as? any CallbackRequestDriver {
            return driver.startRequest(request.event, request.payload, timeout: request.timeout) { result in
                complete(DriverRequestEnd(result))
            }
        }
        let task = Task {
            do {
                complete(.finished(.success(try await self.request(request.event, request.payload, timeout: request.remaining))))
            } catch {
                complete(DriverRequestEnd(.failure(error)))
            }
        }
        return { task.cancel() }
    }
}
