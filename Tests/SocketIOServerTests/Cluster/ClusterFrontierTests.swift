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

    @Test("a broadcast selects a session by its rooms: any of the rooms (all when none), none of the excepted")
    func selects() {
        let rooms: Set<String> = ["id1", "stream"]
        #expect(DurableSessions.selects(ClusterBroadcastOptions(), rooms: rooms))
        #expect(DurableSessions.selects(ClusterBroadcastOptions(rooms: ["stream", "other"]), rooms: rooms))
        #expect(DurableSessions.selects(ClusterBroadcastOptions(rooms: ["id1"]), rooms: rooms))
        #expect(!DurableSessions.selects(ClusterBroadcastOptions(rooms: ["other"]), rooms: rooms))
        #expect(!DurableSessions.selects(ClusterBroadcastOptions(except: ["stream"]), rooms: rooms))
    }
}
