import NIOConcurrencyHelpers

/// What a task's cancellation handler acts on when that thing is known only once the operation
/// registered it (an ack id, a request id, an open attempt's generation).
///
/// The operation calls ``register(_:)`` once it has the value; the cancellation handler calls
/// ``cancel()``. Exactly one of them sees the cancellation: when the task was cancelled before
/// the registration, ``register(_:)`` says so and the operation cancels the value itself;
/// otherwise ``cancel()`` returns it.
///
/// ```swift
/// let target = CancellationTarget<Int>()
/// try await withTaskCancellationHandler {
///     try await withCheckedThrowingContinuation { continuation in
///         let id = start(continuation)
///         if target.register(id) { cancel(id) }
///     }
/// } onCancel: {
///     if let id = target.cancel() { cancel(id) }
/// }
/// ```
package final class CancellationTarget<Value: Sendable>: Sendable {
    private struct State: Sendable {
        var value: Value?
        var cancelled = false
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Records `value`; `true` when the task was cancelled already (the caller cancels `value`).
    package func register(_ value: Value) -> Bool {
        state.withLockedValue { state in
            state.value = value
            return state.cancelled
        }
    }

    /// From the cancellation handler: the value to cancel, or `nil` when none is registered yet
    /// (``register(_:)`` then reports the cancellation).
    package func cancel() -> Value? {
        state.withLockedValue { state in
            state.cancelled = true
            return state.value
        }
    }
}
