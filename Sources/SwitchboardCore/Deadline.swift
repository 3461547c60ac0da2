import NIOConcurrencyHelpers

extension Timeline {
    /// Runs `body` with a deadline on this timeline that holds even when `body` ignores
    /// cancellation.
    ///
    /// At the deadline the body's task is cancelled and this throws `onDeadline()`'s error at
    /// once, whether or not the body noticed. A task group would wait for the body, so a body
    /// stuck on something cancellation cannot reach (a database query on a server that stopped
    /// answering, an `EventLoopFuture`, a lost wake-up) would turn the deadline itself into a
    /// hang. Cancelling the caller cancels the body and throws `CancellationError` at once.
    package func withDeadline<T: Sendable>(
        _ limit: Duration,
        onDeadline: @escaping @Sendable () -> any Error,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = FirstResult<T>()
        let bodyEnded = NIOLockedValueBox(false)
        let work = Task {
            let outcome = await Result(awaiting: body)
            bodyEnded.withLockedValue { $0 = true }
            race.resolve(outcome)
        }
        let cancelTimer = schedule(limit) { race.resolve(.failure(onDeadline())) }
        let result = await withTaskCancellationHandler {
            await race.value()
        } onCancel: {
            race.resolve(.failure(CancellationError()))
        }
        work.cancel()
        cancelTimer()
        // A body that ended is let go before this returns (its task releases what the body
        // captured before it completes): the caller's objects are not kept alive behind its
        // back. A body that did not end is not waited for.
        if bodyEnded.withLockedValue({ $0 }) { await work.value }
        return try result.get()
    }
}

/// The first of several results, handed to one waiter.
package final class FirstResult<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<Result<T, any Error>, Never>?
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Keeps `outcome` unless a result came first; wakes the waiter.
    package func resolve(_ outcome: Result<T, any Error>) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Result<T, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// The first result, once there is one (one waiter at a time).
    package func value() async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing `body`.
    package init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
