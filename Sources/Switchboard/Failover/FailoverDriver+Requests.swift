import SocketIOProtocol

extension FailoverDriver: CallbackRequestDriver {
    /// `request` without a deadline or task of its own: its connection keeps the deadline, and
    /// ends the wait (the reply, if it comes, is dropped). A full window fails it at once with
    /// ``ConnectionError/queueFull(limit:)``, as ``request(_:_:timeout:)`` does.
    func startRequest(
        _ event: String, _ payload: JSONValue, timeout: Duration,
        complete: @escaping @Sendable (Result<Response, any Error>) -> Void
    ) -> @Sendable () -> Void {
        var sent: Int?
        do {
            try transmit(.request(name: event, data: payload)) { id in
                sent = id
                requests.add(id) { complete($0.mapError { $0 as any Error }) }
            }
        } catch {
            complete(.failure(error))
            return {}
        }
        guard let id = sent else { return {} }
        return { [weak self] in self?.requests.settle(id, with: .failure(.cancelled)) }
    }
}
