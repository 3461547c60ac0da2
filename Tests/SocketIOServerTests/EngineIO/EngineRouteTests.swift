import SocketIOProtocol
@_spi(Fuzzing) import SocketIOServer
import Testing

/// `EngineRoute` alone: the decision for each kind of request, in the JS server's order of
/// checks (the end-to-end answers are in CORSTests, PollingTests and BadInputTests).
@Suite("Engine.IO HTTP route")
struct EngineRouteTests {
    static let sid = "cFgA3LSXVcSAVuDwAAAD"

    static func route(
        _ method: String, _ target: String, origin: String? = nil, contentType: String? = nil,
        _ configure: (inout SocketIOServer.Configuration) -> Void = { _ in }
    ) -> EngineRoute.Action {
        var configuration = SocketIOServer.Configuration()
        configure(&configuration)
        let mark = target.firstIndex(of: "?")
        return EngineRoute(
            method: method,
            path: mark.map { String(target[..<$0]) } ?? target,
            query: mark.map { String(target[target.index(after: $0)...]) },
            origin: origin,
            contentType: contentType,
            configuration: configuration
        ).action
    }

    @Test("handshake, poll and post")
    func sessions() {
        #expect(Self.route("GET", "/socket.io/?EIO=4&transport=polling&t=N8hyd6w")
                == .handshake(query: ["EIO": "4", "transport": "polling", "t": "N8hyd6w"]))
        #expect(Self.route("GET", "/socket.io?EIO=4&transport=polling&sid=\(Self.sid)") == .session(sid: Self.sid, .poll))
        #expect(Self.route("POST", "/socket.io/?EIO=4&transport=polling&sid=\(Self.sid)", contentType: "text/plain")
                == .session(sid: Self.sid, .post))
    }

    @Test("the JS server's errors, first failed check first")
    func errors() {
        #expect(Self.route("GET", "/other/?EIO=4&transport=polling") == .notFound)
        #expect(Self.route("GET", "/socket.io/?EIO=4&transport=flashsocket") == .error(.unknownTransport))
        #expect(Self.route("GET", "/socket.io/?EIO=3&transport=polling") == .error(.unsupportedProtocolVersion))
        #expect(Self.route("POST", "/socket.io/?EIO=4&transport=polling") == .error(.badHandshakeMethod))
        #expect(Self.route("GET", "/socket.io/?EIO=4&transport=websocket") == .error(.badRequest))
        #expect(Self.route("GET", "/socket.io/?EIO=4&transport=websocket&sid=\(Self.sid)")
                == .session(sid: Self.sid, .refuse(.badRequest)))
        #expect(Self.route("PUT", "/socket.io/?EIO=4&transport=polling&sid=\(Self.sid)")
                == .session(sid: Self.sid, .refuse(.badRequest)))
        #expect(Self.route("POST", "/socket.io/?EIO=4&transport=polling&sid=\(Self.sid)",
                           contentType: "Application/Octet-Stream") == .session(sid: Self.sid, .refuse(.badRequest)))
        #expect(Self.route("GET", "/socket.io/?EIO=4&transport=websocket&sid=x") { $0.transports = [.polling] }
                == .error(.unknownTransport))
    }

    @Test("CORS: refused origins first, preflight only for allowed ones")
    func cors() {
        let allowed = "https://app.example.com"
        let list: (inout SocketIOServer.Configuration) -> Void = { $0.allowedOrigins = .list([allowed]) }
        #expect(Self.route("GET", "/socket.io/?EIO=9", origin: "https://evil.example", list) == .error(.forbidden))
        #expect(Self.route("OPTIONS", "/socket.io/", origin: allowed, list) == .preflight)
        #expect(Self.route("OPTIONS", "/socket.io/?EIO=4&transport=polling") == .error(.badHandshakeMethod))
    }

    @Test("query: first value wins, + and percent escapes decoded, bad escapes kept")
    func query() {
        #expect(Self.route("GET", "/socket.io/?EIO=%34&transport=pol%6Cing&EIO=3&name=a+b%zz")
                == .handshake(query: ["EIO": "4", "transport": "polling", "name": "a b%zz"]))
    }

    @Test("a POST body is a v4 payload; bytes that are not UTF-8 are repaired")
    func body() throws {
        #expect(try EngineRoute.packets(inPostBody: Array("40\u{1e}42[\"a\"]".utf8)) == [.message("0"), .message("2[\"a\"]")])
        #expect(try EngineRoute.packets(inPostBody: [0x34, 0xFF]) == [.message("\u{FFFD}")])
        #expect(throws: ProtocolError.self) { try EngineRoute.packets(inPostBody: [UInt8]()) }
    }
}
