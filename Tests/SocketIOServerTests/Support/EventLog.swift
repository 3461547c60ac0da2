import SwitchboardTestSupport
import Foundation
import SocketIOServer

/// Every ``ConnectionEvent`` of a server, kept so a test can wait for one that may already
/// have happened.
///
/// `@unchecked Sendable`: all mutable state is guarded by `lock`.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ConnectionEvent] = []
    private var waiters: [UUID: (predicate: @Sendable (ConnectionEvent) -> Bool, continuation: CheckedContinuation<ConnectionEvent, any Error>)] = [:]

    func record(_ event: ConnectionEvent) {
        let woken: [CheckedContinuation<ConnectionEvent, any Error>] = lock.withLock {
            events.append(event)
            let matching = waiters.filter { $0.value.predicate(event) }
            for key in matching.keys { waiters.removeValue(forKey: key) }
            return matching.values.map(\.continuation)
        }
        for waiter in woken { waiter.resume(returning: event) }
    }

    var all: [ConnectionEvent] { lock.withLock { events } }

    /// How many events so far (a mark for ``wait(_:within:after:for:)``).
    var count: Int { lock.withLock { events.count } }

    /// The first event (past or future) matching `predicate`.
    @discardableResult
    func wait(
        _ what: String = "a connection event",
        within seconds: Double = 10,
        after mark: Int = 0,
        for predicate: @escaping @Sendable (ConnectionEvent) -> Bool
    ) async throws -> ConnectionEvent {
        try await withTimeout(seconds, what) {
            let id = UUID()
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let found: ConnectionEvent? = self.lock.withLock {
                        if let event = self.events.dropFirst(mark).first(where: predicate) { return event }
                        if Task.isCancelled { return nil }
                        self.waiters[id] = (predicate, continuation)
                        return nil
                    }
                    if let found {
                        continuation.resume(returning: found)
                    } else if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                let waiter = self.lock.withLock { self.waiters.removeValue(forKey: id) }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Waits for the session `sid` to close; returns its reason.
    func closeReason(of sid: String) async throws -> String {
        let event = try await wait("engine \(sid) closes") {
            if case .sessionClosed(sid, _) = $0 { return true }
            return false
        }
        guard case .sessionClosed(_, let reason) = event else { return "" }
        return reason
    }
}
