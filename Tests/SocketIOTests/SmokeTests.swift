import Testing
@testable import SocketIO

@Test func moduleLinks() {
    #expect(JSONValue.null.isNull)
}
