extension PendingReplies {
    /// Makes a call and waits for its reply: `send` sends it and registers its id with the
    /// `register` it is given, before anything can answer it; it throws (the caller's error)
    /// only before it registers, and one that neither registers nor throws ends the call with
    /// `cancelled`. Cancelling the task answers the call with `cancel` at once, whether it comes
    /// before or after the registration.
    ///
    /// ```swift
    /// let reply = try await requests.call(deadline: deadline, cancelled: .cancelled) { register in
    ///     let id = nextID()
    ///     register(id)
    ///     write(request, id)
    /// }
    /// ```
    package func call(
        deadline: Deadline?,
        cancelled: Failure,
        failure: @escaping @Sendable (Failure) -> any Error = { $0 },
        cancel: (@Sendable (ID) -> Void)? = nil,
        _ send: (_ register: (ID) -> Void) throws -> Void
    ) async throws -> Reply {
        let target = CancellationTarget<ID>()
        let cancel = cancel ?? { [weak self] id in self?.settle(id, with: .failure(cancelled)) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                do {
                    var registered: ID?
                    try send { id in
                        registered = id
                        self.add(id, deadline: deadline) { continuation.resume(with: $0.mapError(failure)) }
                    }
                    guard let id = registered else {
                        continuation.resume(throwing: failure(cancelled))
                        return
                    }
                    if target.register(id) { cancel(id) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            if let id = target.cancel() { cancel(id) }
        }
    }
}
