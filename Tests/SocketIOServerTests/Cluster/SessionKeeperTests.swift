import Logging
import SocketIOProtocol
import SwitchboardCore
import SwitchboardTestSupport
import Testing

@testable import SocketIOServer

/// What the session keeper writes: each session's last state, however many changes it had.
@Suite("Session keeper's pending changes")
struct SessionKeeperTests {
    static func session(_ pid: String, rooms: [String] = []) -> ClusterSession {
        ClusterSession(pid: pid, id: "id-\(pid)", namespace: "/", rooms: ["id-\(pid)"] + rooms, data: [:])
    }

    @Test("one entry per session: its last row, then how it ended; rows, then disconnections, then removals")
    func folds() {
        var pending = SessionKeeper.Pending()
        pending.record(.connected(Self.session("a")))
        pending.record(.connected(Self.session("b")))
        pending.record(.connected(Self.session("a", rooms: ["r"])))
        pending.record(.disconnected(pid: "a"))
        pending.record(.removed(pid: "b"))
        pending.record(.disconnected(pid: "c"))
        pending.record(.connected(Self.session("d")))
        pending.record(.removed(pid: "d"))
        pending.record(.connected(Self.session("d", rooms: ["back"])))
        #expect(pending.take() == [
            .connected(Self.session("a", rooms: ["r"])),
            .connected(Self.session("d", rooms: ["back"])),
            .disconnected(pid: "a"),
            .disconnected(pid: "c"),
            .removed(pid: "b"),
        ])
        #expect(pending.isEmpty)
        #expect(pending.take() == [])
    }

    @Test("a thousand changes of ten sessions wait as ten entries")
    func bounded() {
        var pending = SessionKeeper.Pending()
        for round in 0 ..< 100 {
            for index in 0 ..< 10 {
                pending.record(.connected(Self.session("\(index)", rooms: ["\(round)"])))
            }
        }
        let taken = pending.take()
        #expect(taken.count == 10)
        #expect(taken.first == .connected(Self.session("0", rooms: ["99"])))
    }

    /// The refresh timer firing before the keeper's sleep was registered (a refresh that took
    /// longer than the interval makes the next delay zero) still ends that sleep: before, the
    /// wake-up was lost, and a server whose sockets were quiet never refreshed its sessions
    /// again, so their recovery window ran out in the cluster.
    @Test("a refresh timer that fires before the sleep is registered still wakes it")
    func timerBeforeSleep() async throws {
        let store = MemorySessionStore(bus: LocalClusterBus(), shared: MemorySessionStore.Shared())
        let keeper = SessionKeeper(store: store, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, refreshInterval: .zero)
        // Deadlines due now run at once, inside the schedule call: before the sleep is stored.
        let timeline = Timeline(ContinuousClock()) { delay, action in
            if delay <= .zero { action() }
            return {}
        }
        let running = Task { await keeper.run(owner: "me", clock: timeline) }
        let refreshes = try await store.refreshes.stream.first(2, within: 10, "two refreshes")
        #expect(refreshes == ["me", "me"])
        keeper.close()
        await running.value
    }
}
