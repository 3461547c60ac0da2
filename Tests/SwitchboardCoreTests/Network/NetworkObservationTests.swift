import NIOConcurrencyHelpers
import SwitchboardTestSupport
import Testing

@testable import SwitchboardCore

/// `NetworkMonitor.observe`: the callbacks a manager follows the network path with (no task per
/// manager).
@Suite("Network observation")
struct NetworkObservationTests {
    final class Recorder: Sendable {
        private let box = NIOLockedValueBox<[NetworkPath]>([])
        var paths: [NetworkPath] { box.withLockedValue { $0 } }
        func record(_ path: NetworkPath) { box.withLockedValue { $0.append(path) } }
    }

    @Test("the current path first, then each change in order; nothing after cancel")
    func manualMonitor() {
        let monitor = ManualNetworkMonitor(.satisfied)
        let recorder = Recorder()
        let observation = monitor.observe(recorder.record)
        monitor.update(.unsatisfied)
        monitor.update(.satisfied)
        observation.cancel()
        monitor.update(.unsatisfied)
        #expect(recorder.paths == [.satisfied, .unsatisfied, .satisfied])
    }

    @Test("a relay drops an older version that comes late (the starting path racing a change)")
    func relayOrder() {
        let recorder = Recorder()
        let relay = PathRelay(recorder.record)
        relay.deliver(.unsatisfied, version: 2)
        relay.deliver(.satisfied, version: 1)  // the current path read before the change
        relay.deliver(.satisfied, version: 3)
        relay.cancel()
        relay.deliver(.unsatisfied, version: 4)
        #expect(recorder.paths == [.unsatisfied, .satisfied])
    }

    /// The handler runs outside the relay's lock: it may cancel its own observation, or report a
    /// path to the monitor it observes (that call comes after it returns, in order). Before, the
    /// handler ran under the lock and either call took it again (a trap, or a deadlock).
    @Test("a handler may cancel its observation or report a path, from inside the call")
    func reentrantHandler() {
        final class Slot: @unchecked Sendable {
            var observation: NetworkObservation?
        }
        let monitor = ManualNetworkMonitor(.satisfied)
        let recorder = Recorder()
        let slot = Slot()
        slot.observation = monitor.observe { path in
            recorder.record(path)
            if path == .unsatisfied { monitor.update(.satisfied) }
            if recorder.paths.count == 3 { slot.observation?.cancel() }
        }
        monitor.update(.unsatisfied)
        monitor.update(.unsatisfied)
        #expect(recorder.paths == [.satisfied, .unsatisfied, .satisfied])
    }

    @Test("the default observe, over paths(), for monitors of the app's own")
    func defaultObserve() async throws {
        struct Fixed: NetworkMonitor {
            func paths() -> AsyncStream<NetworkPath> {
                AsyncStream { continuation in
                    continuation.yield(.satisfied)
                    continuation.yield(.unsatisfied)
                    continuation.finish()
                }
            }
        }
        let (seen, continuation) = AsyncStream.makeStream(of: NetworkPath.self)
        let observation = Fixed().observe { continuation.yield($0) }
        let paths = try await seen.first(2, "the two paths")
        #expect(paths == [.satisfied, .unsatisfied])
        observation.cancel()
    }
}
