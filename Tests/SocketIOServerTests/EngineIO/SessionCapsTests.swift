import Foundation
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The session caps: `maxSessions` and `maxSessionsPerAddress` refuse the next handshake — a
/// polling one with 403 and the reference server's JSON error, a WebSocket one by refusing the
/// upgrade — and admit again once a session closed; other addresses are not held up by one
/// address's cap.
@Suite("Session caps")
struct SessionCapsTests {
    static let polling = "/socket.io/?EIO=4&transport=polling"

    static func openPolling(_ port: Int, from source: String? = nil) async throws -> HTTPReply {
        try await HTTPClient.get(port: port, polling, from: source)
    }

    static func sid(of reply: HTTPReply) throws -> String {
        try #require(try JSONValue(parsing: String(reply.text.dropFirst()))["sid"]?.stringValue)
    }

    @Test func theTotalCapRefusesTheNextHandshakeOnBothTransportsAndAdmitsAgainAfterAClose() async throws {
        try await DemoServer.with({ $0.maxSessions = 2 }) { demo in
            let first = try Self.sid(of: try await Self.openPolling(demo.port))
            _ = try Self.sid(of: try await Self.openPolling(demo.port))

            let refused = try await Self.openPolling(demo.port)
            #expect(refused.status == 403)
            #expect(refused.text == #"{"code":4,"message":"Too many sessions"}"#)
            let webSocket = try await RawWebSocket.connect(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket")
            guard case .failure(let refusal) = webSocket else {
                Issue.record("a WebSocket session past the cap was accepted")
                return
            }
            #expect(refusal.reply.status == 400, "the refused upgrade")
            #expect(refusal.reply.text == #"{"code":4,"message":"Too many sessions"}"#, "says why")

            _ = try await HTTPClient.post(port: demo.port, "\(Self.polling)&sid=\(first)", body: "1")
            _ = try await demo.events.closeReason(of: first)
            let again = try await Self.openPolling(demo.port)
            #expect(again.status == 200, "a place came free")
        }
    }

    @Test func theCapPerAddressRefusesThatAddressOnly() async throws {
        try await DemoServer.with({ $0.maxSessionsPerAddress = 1 }) { demo in
            let mine = try Self.sid(of: try await Self.openPolling(demo.port))
            let refused = try await Self.openPolling(demo.port)
            #expect(refused.status == 403)
            #expect(refused.text == #"{"code":4,"message":"Too many sessions from this address"}"#)
            let other = try await Self.openPolling(demo.port, from: "127.0.0.2")
            #expect(other.status == 200, "another machine is not held up")

            _ = try await HTTPClient.post(port: demo.port, "\(Self.polling)&sid=\(mine)", body: "1")
            _ = try await demo.events.closeReason(of: mine)
            #expect(try await Self.openPolling(demo.port).status == 200)
        }
    }

    @Test(arguments: [
        ("127.0.0.1:53122", "127.0.0.1"),
        ("[::1]:53122", "::1"),
        ("10.0.0.7", "10.0.0.7"),
    ])
    func addressesAreCountedByIP(_ address: String, _ ip: String) {
        #expect(SessionRegistry.ip(of: address) == ip)
    }
}
