import Foundation

/// Lets at most as many peer processes start at once as the machine has cores.
///
/// A Python peer spends about 0.4 s of CPU importing python-socketio and aiohttp before it
/// answers. A parallel `swift test` starts ~100 of them in its first seconds, which then take
/// three quarters of a 2-core machine, and in-process tests elsewhere in the run miss their 10 s
/// deadlines. The peer helpers hold a permit from launch until the peer is ready, so the
/// start-ups queue instead of competing; a waiting test has not started its own timers yet.
///
/// ```swift
/// let peer = try await PeerLaunchGate.shared.whileStarting { try await launchAndAwaitReady() }
/// ```
///
/// Waiting honours cancellation (the waiter throws `CancellationError`). `@unchecked Sendable`:
/// all mutable state is guarded by `lock`.
public final class PeerLaunchGate: @unchecked Sendable {
    /// The gate every peer helper in the test run shares.
    public static let shared = PeerLaunchGate(permits: max(1, ProcessInfo.processInfo.activeProcessorCount))

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private enum Outcome { case granted, queued, cancelled }

    private let lock = NSLock()
    private var available: Int
    private var waiters: [Waiter] = []
    private var nextID: UInt64 = 0

    /// A gate with `permits` starts at once.
    public init(permits: Int) {
        precondition(permits > 0, "a gate needs at least one permit")
        available = permits
    }

    /// Runs `body` holding a permit, waiting for one first.
    public func whileStarting<T>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancellation is flagged before `onCancel` runs, and both look under the lock,
                // so a waiter is either never queued or found and failed there.
                let outcome: Outcome = lock.withLock {
                    if Task.isCancelled { return .cancelled }
                    if available > 0 {
                        available -= 1
                        return .granted
                    }
                    waiters.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .granted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = lock.withLock {
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private func release() {
        let next: Waiter? = lock.withLock {
            if waiters.isEmpty {
                available += 1
                return nil
            }
            return waiters.removeFirst()  // the permit passes straight to the next waiter
        }
        next?.continuation.resume()
    }
}
