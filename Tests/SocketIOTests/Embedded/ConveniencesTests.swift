import Foundation
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// The shortcuts a socket.io user looks for: `io(url)`, `socket.timeout(…).emitWithAck(…)`, and
/// an auth provider that returns plain strings.
@Suite("socket.io-style conveniences")
struct ConveniencesTests {
    /// Stands for the app's token source: a `String` from an async call.
    actor Tokens {
        private(set) var calls = 0
        func fresh() async throws -> String {
            calls += 1
            return "secret"
        }
    }

    @Test("io(url) returns a connected socket; timeout(…).emitWithAck gets the ack; socket.io closes")
    func ioAndTimeout() async throws {
        let harness = try await EmbeddedHarness.start()
        let socket = try await withTimeout(10, "io") { try await io(harness.url.absoluteString) }
        #expect(socket.connected)
        #expect(socket.namespace == "/")
        let reply = try await socket.timeout(.seconds(5)).emitWithAck("echo", "hello", 1)
        #expect(reply == ["hello", 1])
        await #expect(throws: SocketIOError.ackTimeout) {
            // No demo event is called that, so no ack comes.
            _ = try await socket.timeout(.milliseconds(100)).emitWithAck("nothing-answers")
        }
        await socket.io.close()
        #expect(!socket.connected)
        await harness.stop()
    }

    @Test("io(url) with a bad URL string throws invalidURL")
    func ioBadURL() async {
        await #expect(throws: SocketIOError.invalidURL("")) { _ = try await io("") }
    }

    /// NIO stops the process on a non-ASCII header name, and refuses control characters only
    /// when it writes: the manager refuses both when it is made, naming the header.
    @Test("a header that cannot be sent is refused when the manager is made, typed")
    func headerThatCannotBeSent() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9"))
        for (name, value, expected) in [
            ("Überschrift", "1", #"header name "Überschrift" is not an HTTP token"#),
            ("X-A", "a\r\nInjected: 1", #"the value of header "X-A" has a control character"#),
        ] {
            var configuration = Manager.Configuration()
            configuration.extraHeaders = [(name: "X-Fine", value: "é"), (name: name, value: value)]
            #expect {
                _ = try Manager(url: url, configuration: configuration)
            } throws: { error in
                guard case SocketIOError.invalidHeader(let why) = error else { return false }
                return why.hasPrefix(expected)
            }
        }
        var fine = Manager.Configuration()
        fine.extraHeaders = [(name: "Authorization", value: "Bearer é\tx")]
        _ = try Manager(url: url, configuration: fine)
    }

    @Test(".provider { [\"token\": String] } type-checks and is asked on connect")
    func stringProvider() async throws {
        let harness = try await EmbeddedHarness.start()
        let tokens = Tokens()
        let auth: SocketAuth = .provider { ["token": try await tokens.fresh()] }
        let chat = try await withTimeout(10, "io /chat") {
            try await io(harness.url, namespace: "/chat", auth: auth)
        }
        #expect(try await chat.emitWithAck("ack", "in") == ["in"])
        #expect(await tokens.calls == 1)
        await chat.io.close()
        await harness.stop()
    }

    @Test("io(\"http://host:port/chat\") joins /chat, as socket.io's io(url); the Engine.IO path stays the path option")
    func urlPathIsTheNamespace() async throws {
        let harness = try await EmbeddedHarness.start()
        let url = harness.url.absoluteString + "/chat"
        let chat = try await withTimeout(10, "io /chat") { try await io(url, auth: .static(["token": "secret"])) }
        #expect(chat.namespace == "/chat")
        #expect(try await chat.emitWithAck("ack", "in") == ["in"])
        // The same namespace given both ways is fine; a trailing slash names the same namespace.
        let again = try await withTimeout(10, "io /chat/ with namespace /chat") {
            try await io(url + "/", namespace: "chat", auth: .static(["token": "secret"]))
        }
        #expect(again.namespace == "/chat")
        // A manager made for the URL opens that namespace by default, any other when asked.
        let manager = try Manager(url: #require(URL(string: url)))
        #expect(manager.defaultNamespace == "/chat")
        #expect(manager.socket().namespace == "/chat")
        #expect(manager.socket(namespace: "/").namespace == "/")
        await manager.close()
        await chat.io.close()
        await again.io.close()
        await harness.stop()
    }

    @Test("a namespace given in the URL and as an argument, different: a typed error, nothing connects")
    func conflictingNamespace() async throws {
        for given in ["/news", "/"] {
            let error = await #expect(throws: SocketIOError.self) {
                _ = try await io("http://127.0.0.1:1/chat", namespace: given)
            }
            guard case .namespaceConflict(let conflict)? = error else {
                Issue.record("expected namespaceConflict, got \(String(describing: error))")
                continue
            }
            #expect(conflict.url == "http://127.0.0.1:1/chat" && conflict.inURL == "/chat" && conflict.given == given)
        }
    }

    @Test("a provider returning JSON values, or nil, still picks the JSONObject case")
    func jsonProvider() async throws {
        let objects: SocketAuth = .provider { ["token": "secret", "attempt": 1] }
        let none: SocketAuth = .provider { nil }
        guard case .provider(let body) = objects, case .provider(let empty) = none else {
            Issue.record("not the provider case")
            return
        }
        #expect(try await body() == ["token": "secret", "attempt": 1])
        #expect(try await empty() == nil)
    }
}
