import Foundation
import NIOConcurrencyHelpers

/// Busy threads, one per core: the loaded machine under which lost wake-ups show.
final class CPUHog: Sendable {
    private let running = NIOLockedValueBox(true)

    /// Starts `threads` threads that spin until ``stop()``.
    init(threads: Int) {
        for _ in 0..<max(threads, 1) {
            let thread = Thread { [running] in
                var spin: UInt64 = 0
                while running.withLockedValue({ $0 }) {
                    for _ in 0..<100_000 { spin &+= 1 }
                }
            }
            thread.start()
        }
    }

    func stop() {
        running.withLockedValue { $0 = false }
    }
}
