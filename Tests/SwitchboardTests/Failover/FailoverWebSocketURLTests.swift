import Foundation
import Switchboard
import Testing

/// Where a failover connection (and `sio bench --failover`) finds the plain WebSocket endpoint:
/// the Socket.IO server's host and port, the WebSocket scheme matching its TLS, the given path.
@Suite struct FailoverWebSocketURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:3000", "ws://127.0.0.1:3000/ws"),
        ("https://example.com", "wss://example.com/ws"),
        ("wss://example.com:8443/socket.io/", "wss://example.com:8443/ws"),
        ("ws://[::1]:3000/chat?token=1", "ws://[::1]:3000/ws?token=1"),
    ])
    func endpoint(base: String, expected: String) throws {
        let url = try #require(URL(string: base))
        #expect(FailoverDriver.webSocketURL(on: url, path: "/ws")?.absoluteString == expected)
    }
}
