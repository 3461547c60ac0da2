import Testing
@testable import SocketIOServer

/// A request's query as the Engine.IO routes read it.
@Suite("Engine.IO query")
struct EngineQueryTests {
    @Test func readsParametersAsTheJavaScriptServerDoes() {
        let query = EngineQuery("EIO=4&transport=polling&&sid=a-b_c&name=J%C3%BCrgen+X&flag&eq=b=c&EIO=3&t=Pq1%2")
        #expect(query.eio == "4", "the first of a repeated name wins")
        #expect(query.transport == "polling")
        #expect(query.sid == "a-b_c")
        #expect(query.parameters["name"] == "Jürgen X", "percent-decoded, + is a space")
        #expect(query.parameters["flag"] == "", "a name without a value")
        #expect(query.parameters["eq"] == "b=c", "split at the first =")
        #expect(query.parameters["t"] == "Pq1%2", "a broken escape is kept as sent")
        #expect(query.parameters.count == 7, "empty pairs are skipped")
    }

    @Test func noQuery() {
        #expect(EngineQuery(nil).parameters.isEmpty)
        #expect(EngineQuery("").parameters.isEmpty)
        #expect(EngineQuery("&&").parameters.isEmpty)
    }
}
