import Foundation
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import Switchboard

@Suite("Connection builder: auth providers")
struct ConnectionBuilderAuthTests {
    actor Session {
        func freshToken() async throws -> String { "secret" }
    }

    @Test func aProviderOfStringsTypeChecksAndResolvesToAnObject() async throws {
        let session = Session()
        let builder = ConnectionBuilder().url(testURL).auth(id: "session") { ["token": try await session.freshToken()] }
        guard case .provider(let id, let provider) = builder.configuration.auth else {
            Issue.record("not a provider: \(builder.configuration.auth)")
            return
        }
        #expect(id == "session")
        #expect(try await provider() == ["token": "secret"])
    }

    @Test func aProviderOfJSONValuesOrNilKeepsItsType() async throws {
        let builder = ConnectionBuilder().url(testURL).auth(id: "json") { ["token": "secret", "attempt": 1] }
        let none = ConnectionBuilder().url(testURL).auth(id: "none") { nil }
        guard case .provider(_, let provider) = builder.configuration.auth, case .provider(_, let empty) = none.configuration.auth else {
            Issue.record("not providers")
            return
        }
        #expect(try await provider() == ["token": "secret", "attempt": 1])
        #expect(try await empty() == nil)
    }
}
