import Logging
import SwitchboardCore
import SwitchboardTestSupport
import Testing

@testable import SocketIOServer

/// The recovery offset of a namespace whose sessions are kept in the cluster: what it says,
/// written and read back.
@Suite("Cluster frontier (recovery offsets across servers)")
struct ClusterFrontierTests {
    @Test("advances per origin by tag, never backwards, and reads back from its offset")
    func roundTrip() throws {
        var frontier = ClusterFrontier()
        frontier.advance("90ab12cd00112233", to: 7)
        frontier.advance("1f2e3d4c44556677", to: 1_000)
        frontier.advance("90ab12cd00112233", to: 3)
        #expect(frontier.offset == "1f2e3d4c:rs.90ab12cd:7")
        let read = try #require(ClusterFrontier(offset: frontier.offset))
        #expect(read == frontier)
        #expect(read.seen == ["1f2e3d4c": 1_000, "90ab12cd": 7])
    }

    @Test("an unnumbered event's offset (frontier!counter) reads as its frontier; an empty frontier only with a counter")
    func unnumbered() throws {
        #expect(ClusterFrontier(offset: "1f2e3d4c:rs!5")?.seen == ["1f2e3d4c": 1_000])
        #expect(ClusterFrontier(offset: "!1")?.seen == [:])
        #expect(ClusterFrontier(offset: "") == nil)
    }

    @Test("an in-process server's counter or garbage is not a cluster offset", arguments: ["k3", "1", "a:b:c", "abc:!", "x:1.x:2", "123456789:1", ":1", "a:-1"])
    func rejects(_ offset: String) {
        #expect(ClusterFrontier(offset: offset) == nil)
    }

    @Test("reaches: every target origin at least that far")
    func reaches() {
        let frontier = ClusterFrontier(seen: ["a": 5, "b": 2])
        #expect(frontier.reaches(["a": 5]))
        #expect(frontier.reaches([:]))
        #expect(!frontier.reaches(["a": 6]))
        #expect(!frontier.reaches(["c": 1]))
        #expect(frontier.merged(with: ClusterFrontier(seen: ["a": 3, "c": 9])).seen == ["a": 5, "b": 2, "c": 9])
    }

    @Test("an origin that did not move for two calls in a row is forgotten at the third, and comes back when it moves again")
    func forgetsQuietOrigins() {
        var cursor = DeliveryOrder.Cursor()
        cursor.advance("aaaaaaaa00000001", to: 5)
        cursor.advance("bbbbbbbb00000002", to: 3)
        #expect(cursor.forgetQuietOrigins() == [])
        cursor.advance("aaaaaaaa00000001", to: 6)
        #expect(cursor.forgetQuietOrigins() == [])
        #expect(cursor.forgetQuietOrigins() == ["bbbbbbbb"])
        #expect(cursor.offset(numbered: true) == "aaaaaaaa:6")
        #expect(cursor.forgetQuietOrigins() == ["aaaaaaaa"])
        #expect(cursor.offset(numbered: false) == "!1")
        cursor.advance("bbbbbbbb00000002", to: 4)
        #expect(cursor.offset(numbered: true) == "bbbbbbbb:4")
        #expect(cursor.forgetQuietOrigins() == [])
        #expect(cursor.forgetQuietOrigins() == [])
        #expect(cursor.forgetQuietOrigins() == ["bbbbbbbb"])
    }

    @Test("a running namespace forgets, once per recovery window, the origins silent for two windows: its offsets stop naming a server gone")
    func sessionsForgetServersGone() async throws {
        let clock = ManualClock()
        let window: Duration = .seconds(37)
        let sessions = DurableSessions(
            store: MemorySessionStore(bus: LocalClusterBus(), shared: MemorySessionStore.Shared()),
            recovery: .enabled(maxDisconnectionDuration: window), storeLimit: .seconds(5), startLimit: .seconds(5),
            clock: Timeline(clock), logger: Logger(label: "test")
        )
        try await sessions.start(owner: "cccccccc00000003", namespace: "/")
        sessions.order.inOrder { $0.advance("aaaaaaaa00000001", to: 1) }
        for round in 1...3 {
            _ = try await withTimeout(10, "the forgetter's sleep \(round)") { await clock.waitForSleep(round) { $0 == window } }
            #expect(sessions.order.frontier.seen["aaaaaaaa"] == 1, "round \(round)")
            clock.advance(by: window)
        }
        // The third call forgot it; the loop sleeps again only after.
        _ = try await withTimeout(10, "the forgetter's sleep 4") { await clock.waitForSleep(4) { $0 == window } }
        #expect(sessions.order.frontier.seen.isEmpty)
        await sessions.stop()
    }

    @Test("a broadcast selects a session by its rooms: any of the rooms (all when none), none of the excepted")
    func selects() {
        let rooms: Set<String> = ["id1", "stream"]
        #expect(DurableSessions.selects(ClusterBroadcastOptions(), rooms: rooms))
        #expect(DurableSessions.selects(ClusterBroadcastOptions(rooms: ["stream", "other"]), rooms: rooms))
        #expect(DurableSessions.selects(ClusterBroadcastOptions(rooms: ["id1"]), rooms: rooms))
        #expect(!DurableSessions.selects(ClusterBroadcastOptions(rooms: ["other"]), rooms: rooms))
        #expect(!DurableSessions.selects(ClusterBroadcastOptions(except: ["stream"]), rooms: rooms))
    }

    /// The journal can hold a row twice (a batch written again after its NOTIFY failed): a
    /// recovering client gets the event once, and nothing its offset says it had.
    @Test("a message the frontier passed already is not replayed")
    func journalRowsHeldTwiceAreReplayedOnce() {
        let uid = "90ab12cd00112233"
        func tick(_ number: UInt64) -> ClusterMessage {
            let packet = ClusterPacket(event: "tick", items: [.number(Double(number))], namespace: "/")
            return ClusterMessage(uid: uid, namespace: "/", payload: .broadcast(packet: packet, options: ClusterBroadcastOptions(), requestId: nil), sequence: number)
        }
        var had = ClusterFrontier()
        had.advance(uid, to: 1)
        let replayed = DurableSessions.replay([tick(1), tick(2), tick(2), tick(3), tick(3)], from: had, rooms: []) { event, items, _ in
            [EngineFrame.message("\(event) \(items.first?.intValue ?? -1)")]
        }
        #expect(replayed.map(\.frames) == [[EngineFrame.message("tick 2")], [EngineFrame.message("tick 3")]])
    }
}
