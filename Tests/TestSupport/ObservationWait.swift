import NIOConcurrencyHelpers
import Observation

/// Waits on the main actor until `condition` holds, woken by Observation
/// (`withObservationTracking`) each time a property it reads changes — no polling, no sleeps.
/// Fails with ``TestTimeout`` after `seconds`.
///
/// `condition` must read an observable property on every evaluation (put it first in an `&&`):
/// a change is only heard from the properties the last evaluation read.
@MainActor
public func waitUntil(
    _ what: String,
    within seconds: Double = 15,
    _ condition: @escaping @MainActor @Sendable () -> Bool
) async throws {
    try await withTimeout(seconds, what) { @MainActor in
        while !condition() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wake = ResumeOnce(continuation)
                // Reads and subscribes in one synchronous step: no change can fall in between.
                let holds = withObservationTracking { condition() } onChange: { wake.resume() }
                if holds { wake.resume() }
            }
        }
    }
}

/// Resumes a continuation the first time it is asked to.
private final class ResumeOnce: Sendable {
    private let continuation: NIOLockedValueBox<CheckedContinuation<Void, Never>?>

    init(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation = NIOLockedValueBox(continuation)
    }

    func resume() {
        continuation.withLockedValue { taken in
            defer { taken = nil }
            return taken
        }?.resume()
    }
}
