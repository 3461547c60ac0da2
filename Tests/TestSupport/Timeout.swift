import Harness

/// Deadlines for tests that wait on real sockets and servers: a step that does not finish in
/// time fails the test instead of hanging it. A guard against hangs only — no test asserts on
/// timing.

/// A test step that did not finish in time.
public struct TestTimeout: Error, CustomStringConvertible {
    public let what: String
    public let seconds: Double
    public var description: String { "timed out after \(seconds) s: \(what)" }
}

/// Runs `body`, failing with ``TestTimeout`` if it takes longer than `seconds`.
///
/// At the deadline this returns at once, whether or not the body noticed its cancellation (see
/// `withDeadline`): a body stuck on something cancellation cannot reach fails the test instead
/// of hanging it.
public func withTimeout<T: Sendable>(
    _ seconds: Double = 15,
    _ what: String = "step",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withDeadline(.milliseconds(Int(seconds * 1000)), onDeadline: { TestTimeout(what: what, seconds: seconds) }, body)
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// The first `count` elements, or ``TestTimeout``.
    public func first(_ count: Int, within seconds: Double = 15, _ what: String = "events") async throws -> [Element] {
        try await withTimeout(seconds, what) {
            var collected: [Element] = []
            for try await element in self {
                collected.append(element)
                if collected.count == count { break }
            }
            return collected
        }
    }

    /// The first element matching `predicate`, or ``TestTimeout``.
    public func firstMatch(
        within seconds: Double = 15,
        _ what: String = "event",
        where predicate: @escaping @Sendable (Element) -> Bool
    ) async throws -> Element? {
        try await withTimeout(seconds, what) {
            for try await element in self where predicate(element) { return element }
            return nil
        }
    }
}
