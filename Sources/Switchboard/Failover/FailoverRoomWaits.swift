import SwitchboardCore

/// The sends of a ``FailoverDriver`` that wait for room in the window
/// (``FailoverDriver/send(_:_:waitingUpTo:)``), each answered exactly once: by room (an
/// acknowledgement admitted it, ``FailoverRoom``), by its bound, by its task's cancellation,
/// or by the channel closing. The line itself — who is next — is the state machine's; this
/// holds the callers and their deadlines, on the one shared timer of ``PendingReplies``.
struct FailoverRoomWaits: Sendable {
    /// A send found the window full and may wait: `token` is its place in the line.
    struct Full: Error {
        let token: Int
    }

    private let waits = PendingReplies<Int, Void, ConnectionError>()
    /// The window (what `queueFull` names).
    let window: Int
    let timeline: Timeline

    /// How many sends wait now.
    var count: Int { waits.count }

    /// Waits up to `timeout` for the slot `token` waits for, until room is made — never by
    /// polling: ``admit(_:)`` wakes it.
    ///
    /// - Parameters:
    ///   - line: puts `token` in the machine's line (under the driver's lock), after the caller
    ///     is registered here, so whatever ends the wait from then on finds it.
    ///   - ended: takes `token` out of the machine's line when the wait failed; returns the
    ///     tokens admitted instead (a slot given to it meanwhile passes on).
    /// - Throws: ``ConnectionError/queueFull(limit:)`` when `timeout` passed,
    ///   ``ConnectionError/cancelled`` when the task was cancelled, `closed` when the channel
    ///   closed; `token` holds nothing then.
    func wait(
        _ token: Int, upTo timeout: Duration, closed: ConnectionError,
        line: () -> FailoverChannel.RoomWait, ended: () -> [Int]
    ) async throws {
        let window = self.window
        let deadline = PendingReplies<Int, Void, ConnectionError>.Deadline(after: timeout, on: timeline) { _ in .queueFull(limit: window) }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    waits.add(token, deadline: deadline) { continuation.resume(with: $0.mapError { $0 as any Error }) }
                    switch line() {
                    case .holding: waits.settle(token, with: .success(()))
                    case .waiting: break
                    case .closed: waits.settle(token, with: .failure(closed))
                    }
                    // Cancelled before it was registered: the handler below found nothing to end.
                    if Task.isCancelled { waits.settle(token, with: .failure(.cancelled)) }
                }
            } onCancel: {
                waits.settle(token, with: .failure(.cancelled))
            }
        } catch {
            admit(ended())
            throw error
        }
    }

    /// Wakes the sends waiting with `tokens`: each holds a slot now.
    func admit(_ tokens: [Int]) {
        for token in tokens { waits.settle(token, with: .success(())) }
    }

    /// The channel closed: every waiting send fails with `error`.
    func failAll(with error: ConnectionError) {
        waits.failAll(with: error)
    }
}
