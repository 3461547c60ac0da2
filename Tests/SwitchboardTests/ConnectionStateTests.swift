import Testing
@testable import Switchboard

@Test func connectionStatesAreTheSpecTable() {
    #expect(ConnectionState.allCases.count == 5)
}
