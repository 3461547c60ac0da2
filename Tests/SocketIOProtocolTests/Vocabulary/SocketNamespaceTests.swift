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

    @Test("a protocol v4 CONNECT's query is not part of the name")
    func withoutQuery() {
        #expect(SocketNamespace.withoutQuery("/admin?token=1&x=2") == "/admin")
        #expect(SocketNamespace.withoutQuery("/admin") == "/admin")
        #expect(SocketNamespace.withoutQuery("/?token=1") == "/")
    }

    @Test("protocol v4 socket ids: the engine's sid on /, nsp#sid elsewhere (socket.io 2.x)")
    func protocolV4SocketID() {
        #expect(SocketNamespace.protocolV4SocketID(namespace: "/", engineSID: "abc") == "abc")
        #expect(SocketNamespace.protocolV4SocketID(namespace: "/chat", engineSID: "abc") == "/chat#abc")
    }
}
