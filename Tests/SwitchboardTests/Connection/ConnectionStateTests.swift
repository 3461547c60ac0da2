import Testing
@testable import Switchboard

@Suite("Connection state table")
struct ConnectionStateTests {
    @Test func connectionStatesAreTheSpecTable() {
        #expect(ConnectionState.allCases.count == 5)
    }

    /// Every one of the 25 (from, to) pairs, against SPEC.md's table written out by hand.
    @Test(arguments: ConnectionState.allCases)
    func everyPairFollowsTheTable(_ from: ConnectionState) {
        let table: [ConnectionState: Set<ConnectionState>] = [
            .created: [.connected, .disconnected],
            .connected: [.disconnected],
            .disconnected: [.reconnecting, .released],
            .reconnecting: [.connected, .disconnected],
            .released: [],
        ]
        for to in ConnectionState.allCases {
            #expect(from.canMove(to: to) == table[from]?.contains(to), "\(from) → \(to)")
        }
    }
}
