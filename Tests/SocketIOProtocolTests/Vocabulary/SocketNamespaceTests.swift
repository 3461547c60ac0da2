import Foundation
import SocketIOProtocol
import Testing

/// Which namespace a URL and an argument name, as socket.io's `io(url)` reads them.
@Suite struct SocketNamespaceTests {
    @Test("the URL's path is the namespace; no path, or /, names none", arguments: [
        ("http://example.com", nil),
        ("http://example.com/", nil),
        ("http://example.com:3000/admin", "/admin"),
        ("https://example.com/admin/", "/admin"),
        ("ws://example.com/a/b?token=1", "/a/b"),
        ("http://example.com/caf%C3%A9", "/café"),
    ] as [(String, String?)])
    func named(_ url: String, _ namespace: String?) throws {
        #expect(SocketNamespace.named(by: try #require(URL(string: url))) == namespace)
    }

    @Test("given, else from the URL, else /; both and different is a Conflict")
    func resolve() throws {
        let plain = try #require(URL(string: "http://example.com:3000"))
        let admin = try #require(URL(string: "http://example.com:3000/admin"))
        #expect(try SocketNamespace.resolve(url: plain, namespace: nil) == "/")
        #expect(try SocketNamespace.resolve(url: plain, namespace: "chat") == "/chat")
        #expect(try SocketNamespace.resolve(url: admin, namespace: nil) == "/admin")
        #expect(try SocketNamespace.resolve(url: admin, namespace: "/admin") == "/admin")
        let conflict = #expect(throws: SocketNamespace.Conflict.self) {
            try SocketNamespace.resolve(url: admin, namespace: "/chat")
        }
        #expect(conflict?.url == admin.absoluteString && conflict?.inURL == "/admin" && conflict?.given == "/chat")
        #expect(throws: SocketNamespace.Conflict.self) { try SocketNamespace.resolve(url: admin, namespace: "/") }
    }
}
