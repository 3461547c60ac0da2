public import SocketIOProtocol

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
