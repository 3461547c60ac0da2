import Foundation
import Testing
import WebSocketClient

/// The one reading of a server URL that the engine and the plain WebSocket driver share.
@Suite struct ServerAddressTests {
    static func address(_ text: String) -> ServerAddress? {
        URLComponents(string: text).flatMap(ServerAddress.init)
    }

    @Test(arguments: [
        ("http://example.com", false, "example.com", 80, "example.com"),
        ("ws://example.com:80/ws", false, "example.com", 80, "example.com"),
        ("HTTPS://example.com", true, "example.com", 443, "example.com"),
        ("wss://example.com:8443/ws?x=1", true, "example.com", 8443, "example.com:8443"),
        ("http://127.0.0.1:3000", false, "127.0.0.1", 3000, "127.0.0.1:3000"),
        ("http://[::1]:3000/", false, "::1", 3000, "[::1]:3000"),
        ("https://[::1]", true, "::1", 443, "[::1]"),
    ])
    func readsSchemeHostAndPort(url: String, secure: Bool, host: String, port: Int, hostHeader: String) throws {
        let address = try #require(Self.address(url))
        #expect(address == ServerAddress(secure: secure, host: host, port: port))
        #expect(address.hostHeader == hostHeader)
    }

    @Test(arguments: ["ftp://example.com", "example.com", "http://", "file:///tmp/x", "mailto:a@b.c"])
    func refusesWhatIsNoServer(url: String) {
        #expect(Self.address(url) == nil)
    }

    @Test func sendsNoServerNameForAnIPAddress() throws {
        #expect(try #require(Self.address("wss://example.com")).serverHostname == "example.com")
        #expect(try #require(Self.address("wss://10.0.0.1")).serverHostname == nil)
        #expect(try #require(Self.address("wss://[::1]")).serverHostname == nil)
    }
}
