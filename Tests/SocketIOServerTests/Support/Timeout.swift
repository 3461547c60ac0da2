import Foundation
import Testing

/// A test step that did not finish in time: the test fails instead of hanging.
struct TestTimeout: Error, CustomStringConvertible {
    let what: String
    let seconds: Double
    var description: String { "timed out after \(seconds) s: \(what)" }
}

/// Runs `body`, failing with ``TestTimeout`` if it takes longer than `seconds`. A guard against
/// hangs only — no test asserts on timing.
func withTimeout<T: Sendable>(
    _ seconds: Double = 15,
    _ what: String = "step",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            throw TestTimeout(what: what, seconds: seconds)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TestTimeout(what: what, seconds: seconds) }
        return first
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// The first `count` elements, or ``TestTimeout``.
    func first(_ count: Int, within seconds: Double = 15, _ what: String = "events") async throws -> [Element] {
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
    func firstMatch(
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
