import Foundation
import SwitchboardTestSupport
@testable import Switchboard
import SwitchboardTesting

let testURL = URL(string: "memory://server")!

/// A connection to `server` over the in-memory driver, with deadlines on `clock`.
func makeConnection(
    _ server: InMemoryServer,
    clock: any Clock<Duration> = ContinuousClock(),
    configure: (inout ConnectionConfiguration) -> Void = { _ in }
) -> DriverConnection {
    var configuration = ConnectionConfiguration(url: testURL)
    configure(&configuration)
    return DriverConnection(configuration: configuration, driver: InMemoryDriver(server: server), clock: clock)
}

extension AsyncSequence where Self: Sendable, Element: Sendable & Equatable {
    /// Waits until the sequence yields `value` (or ``TestTimeout``).
    func wait(for value: Element, within seconds: Double = 10, _ what: String = "value") async throws {
        let found = try await firstMatch(within: seconds, what) { $0 == value }
        if found == nil { throw SequenceEnded(what: what) }
    }
}

/// A sequence ended before yielding what a test waited for.
struct SequenceEnded: Error, CustomStringConvertible {
    let what: String
    var description: String { "the sequence ended before \(what)" }
}

extension DriverConnection {
    /// Waits until `count` commands wait in the offline queue.
    func waitForQueued(_ count: Int, _ what: String = "queued commands") async throws {
        try await queuedCommandCounts().wait(for: count, what)
    }

    /// Waits until the connection is in `state`.
    func waitFor(_ state: ConnectionState, _ what: String? = nil, within seconds: Double = 30) async throws {
        try await stateChanges().wait(for: state, within: seconds, what ?? "state \(state)")
    }
}

/// The result of a task that is expected to fail, as the error it threw.
func failure<T: Sendable>(of task: Task<T, any Error>) async -> (any Error)? {
    do {
        _ = try await task.value
        return nil
    } catch {
        return error
    }
}
