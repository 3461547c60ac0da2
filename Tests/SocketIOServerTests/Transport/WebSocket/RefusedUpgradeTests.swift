import Foundation
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// A refused WebSocket upgrade is answered 400, as socket.io's server answers one, with the
/// reference server's `{"code":n,"message":"…"}` body saying why: a WebSocket-only client has no
/// other way to learn that the server does not speak its revision.
@Suite("Refused WebSocket upgrades")
struct RefusedUpgradeTests {
    static func refusal(_ port: Int, _ target: String, headers: [(String, String)] = []) async throws -> HTTPReply {
        let result = try await RawWebSocket.connect(port: port, target: target, headers: headers)
        guard case .failure(let refused) = result else {
            Issue.record("the upgrade to \(target) was accepted")
            return HTTPReply(status: 101, headers: [:], body: [])
        }
        return refused.reply
    }

    @Test(arguments: [
        ("/socket.io/?EIO=3&transport=websocket", #"{"code":5,"message":"Unsupported protocol version"}"#),
        ("/socket.io/?EIO=4&transport=polling", #"{"code":0,"message":"Transport unknown"}"#),
        ("/socket.io/?EIO=4&transport=websocket&sid=nobody", #"{"code":1,"message":"Session ID unknown"}"#),
        ("/elsewhere", #"{"code":3,"message":"Bad request"}"#),
    ])
    func theBodySaysWhy(_ target: String, _ body: String) async throws {
        try await DemoServer.with { demo in
            let reply = try await Self.refusal(demo.port, target)
            #expect(reply.status == 400)
            #expect(reply.headers["content-type"] == "application/json")
            #expect(reply.text == body)
        }
    }

    @Test func anOriginTheServerDoesNotAllowIsForbidden() async throws {
        try await DemoServer.with({ $0.allowedOrigins = .list(["https://app.example"]) }) { demo in
            let reply = try await Self.refusal(demo.port, "/socket.io/?EIO=4&transport=websocket", headers: [("Origin", "https://evil.example")])
            #expect(reply.status == 400)
            #expect(reply.text == #"{"code":4,"message":"Forbidden"}"#)
        }
    }
}
