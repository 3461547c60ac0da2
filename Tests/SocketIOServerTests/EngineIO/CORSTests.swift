import Foundation
import SocketIOServer
import Testing

@Suite("CORS")
struct CORSTests {
    @Test("default: no CORS headers, requests with or without Origin are served (socket.io's default)")
    func unrestricted() async throws {
        try await DemoServer.with { demo in
            let withOrigin = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=polling",
                                                      headers: [("Origin", "http://elsewhere.example")])
            #expect(withOrigin.status == 200)
            #expect(withOrigin.headers["access-control-allow-origin"] == nil)
            let without = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=polling")
            #expect(without.status == 200)
        }
    }

    @Test("a list: preflight answered and Allow-Origin set for listed origins; others refused with 403")
    func list() async throws {
        let allowed = "https://app.example"
        try await DemoServer.with({ $0.allowedOrigins = .list([allowed]) }) { demo in
            let preflight = try await HTTPClient.request(
                "OPTIONS", port: demo.port, target: "/socket.io/?EIO=4&transport=polling",
                headers: [("Origin", allowed), ("Access-Control-Request-Method", "POST"),
                          ("Access-Control-Request-Headers", "content-type")]
            )
            #expect(preflight.status == 204)
            #expect(preflight.headers["access-control-allow-origin"] == allowed)
            #expect(preflight.headers["access-control-allow-methods"]?.contains("POST") == true)
            #expect(preflight.headers["access-control-allow-headers"] == "content-type")

            let handshake = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=polling",
                                                     headers: [("Origin", allowed)])
            #expect(handshake.status == 200)
            #expect(handshake.headers["access-control-allow-origin"] == allowed)
            #expect(handshake.headers["access-control-allow-credentials"] == "true")

            let refused = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=polling",
                                                   headers: [("Origin", "https://evil.example")])
            #expect(refused.status == 403)
            #expect(refused.text == #"{"code":4,"message":"Forbidden"}"#)

            // Native clients send no Origin.
            #expect(try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=polling").status == 200)

            let ws = try await RawWebSocket.connect(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket",
                                                    headers: [("Origin", "https://evil.example")])
            #expect(throws: UnexpectedReply.self) { try ws.get() }
            let allowedWS = try await RawWebSocket.open(port: demo.port, target: "/socket.io/?EIO=4&transport=websocket",
                                                        headers: [("Origin", allowed)])
            #expect(try await allowedWS.nextText().hasPrefix("0{"))
            allowedWS.drop()
        }
    }
}
