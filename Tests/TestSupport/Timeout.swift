import Foundation

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
/// At the deadline the body's task is cancelled and this returns at once, whether or not the body
/// noticed: a body stuck on something cancellation cannot reach (a lost wake-up, an
/// `EventLoopFuture`) fails the test instead of hanging it. (A task group would wait for it.)
public func withTimeout<T: Sendable>(
    _ seconds: Double = 15,
    _ what: String = "step",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = FirstOf<T>()
    let work = Task { race.resolve(await Result(awaiting: body)) }
    let timer = Task {
        try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
        race.resolve(.failure(TestTimeout(what: what, seconds: seconds)))
    }
    let result = await withTaskCancellationHandler {
        await race.value()
    } onCancel: {
        work.cancel()
        race.resolve(.failure(CancellationError()))
    }
    work.cancel()
    timer.cancel()
    return try result.get()
}

/// The first of several results, handed to one waiter.
final class FirstOf<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<Result<T, any Error>, Never>?

    func resolve(_ outcome: Result<T, any Error>) {
        lock.lock()
        guard result == nil else { return lock.unlock() }
        result = outcome
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(returning: outcome)
    }

    func value() async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(returning: result)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing `body`.
    init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
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
