import SwitchboardCore

/// Runs `body` with a deadline on the real clock that holds even when `body` ignores
/// cancellation (see `Timeline.withDeadline`): a test or a benchmark waiting on something stuck
/// reports the deadline instead of hanging.
package func withDeadline<T: Sendable>(
    _ duration: Duration,
    onDeadline: @escaping @Sendable () -> any Error,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await Timeline(ContinuousClock()).withDeadline(duration, onDeadline: onDeadline, body)
}
