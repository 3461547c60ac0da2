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
    /// error messages only.
    func startRequest(
        _ event: String, _ payload: JSONValue, timeout: Duration,
        complete: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> @Sendable () -> Void
}

extension ConnectionDriver {
    /// Hands `request` to the driver; `complete` hears its outcome once. Returns what ends the
    /// driver's part (when the request's deadline passes or its caller is cancelled first).
    ///
    /// A ``CallbackRequestDriver`` takes it as it is: the deadline in the connection's replies
    /// is the request's only one. Any other driver gets a task and what is left of the deadline
    /// as its `timeout`.
    func start(
        _ request: CommandLane<some Sendable>.DriverRequest,
        complete: @escaping @Sendable (Result<Response, ConnectionError>) -> Void
    ) -> @Sendable () -> Void {
        if let driver = self as? any CallbackRequestDriver {
            return driver.startRequest(request.event, request.payload, timeout: request.timeout) { result in
                complete(result.mapError { ConnectionError(driverFailure: $0) })
            }
        }
        let task = Task {
            do {
                complete(.success(try await self.request(request.event, request.payload, timeout: request.remaining)))
            } catch {
                complete(.failure(ConnectionError(driverFailure: error)))
            }
        }
        return { task.cancel() }
    }
}
