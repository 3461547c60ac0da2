import Foundation
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The heartbeat a suite case runs with.
enum SuiteHeartbeat {
    /// The suites' own: pingInterval 300 ms, pingTimeout 200 ms (the handshake announces it).
    case suite
    /// Pings every 300 ms, 30 s to answer: for the cases that exchange pings (a test starved for
    /// seconds on a loaded machine still finds its session).
    case pingPong
    /// The server's defaults (25 s / 20 s): no heartbeat within the case.
    case relaxed

    var pingInterval: Duration {
        switch self {
        case .suite, .pingPong: .milliseconds(300)
        case .relaxed: .seconds(25)
        }
    }

    var pingTimeout: Duration {
        switch self {
        case .suite: .milliseconds(200)
        case .pingPong: .seconds(30)
        case .relaxed: .seconds(20)
        }
    }
}

/// The Engine.IO cases both official suites share (`engine.io-protocol` at `/engine.io/`,
/// `socket.io-protocol` at `/socket.io/`), each against a server on `port` serving Engine.IO at
/// `path` with maxPayload 1,000,000 and the heartbeat the case asks for (``SuiteHeartbeat``).
struct EngineProtocolCases {
    let demo: DemoServer
    let path: String

    var port: Int { demo.port }

    func polling(_ query: String = "") -> String { "\(path)?EIO=4&transport=polling\(query)" }

    /// `initLongPollingSession()`: a handshake GET, its sid.
    func openPolling() async throws -> String {
        let reply = try await HTTPClient.get(port: port, polling())
        let json = try JSONValue(parsing: String(reply.text.dropFirst()))
        return try #require(json["sid"]?.stringValue)
    }

    func webSocket(_ query: String = "") async throws -> RawWebSocket {
        try await RawWebSocket.open(port: port, target: "\(path)?EIO=4&transport=websocket\(query)")
    }

    /// The next frame that is not a ping or the probe's answer (the JavaScript listeners are not
    /// attached when those arrive, so they never see them).
    static func nextMessage(_ socket: RawWebSocket) async throws -> RawWebSocket.Message {
        while true {
            let message = try await withTimeout(10, "a message") { try await socket.next() }
            if case .text(let text) = message, text == "2" || text == "3probe" { continue }
            return message
        }
    }

    /// Waits until the server holds a GET of session `sid` (where the JavaScript cases stagger
    /// requests by a few milliseconds).
    func waitUntilHolding(_ sid: String) async throws {
        try await withTimeout(10, "the GET being held") {
            while !demo.server.holdsPoll(sid: sid) { await Task.yield() }
        }
    }

    static func assertHandshake(_ text: String, upgrades: [JSONValue]) throws {
        #expect(text.hasPrefix("0"))
        let value = try JSONValue(parsing: String(text.dropFirst()))
        guard case .object(let object) = value else {
            Issue.record("not an object: \(text)")
            return
        }
        #expect(Set(object.keys) == ["sid", "upgrades", "pingInterval", "pingTimeout", "maxPayload"])
        #expect(value["sid"]?.stringValue != nil)
        #expect(value["upgrades"] == .array(upgrades))
        #expect(value["pingInterval"] == 300)
        #expect(value["pingTimeout"] == 200)
        #expect(value["maxPayload"] == 1_000_000)
    }

    // MARK: - handshake

    func pollingHandshake() async throws {
        let reply = try await HTTPClient.get(port: port, polling())
        #expect(reply.status == 200)
        try Self.assertHandshake(reply.text, upgrades: ["websocket"])
    }

    func pollingInvalidEIO() async throws {
        let missing = try await HTTPClient.get(port: port, "\(path)?transport=polling")
        let invalid = try await HTTPClient.get(port: port, "\(path)?EIO=abc&transport=polling")
        #expect(missing.status == 400 && invalid.status == 400)
    }

    func pollingInvalidTransport() async throws {
        let missing = try await HTTPClient.get(port: port, "\(path)?EIO=4")
        let invalid = try await HTTPClient.get(port: port, "\(path)?EIO=4&transport=abc")
        #expect(missing.status == 400 && invalid.status == 400)
    }

    func pollingInvalidMethod() async throws {
        let post = try await HTTPClient.request("POST", port: port, target: polling())
        let put = try await HTTPClient.request("PUT", port: port, target: polling())
        #expect(post.status == 400 && put.status == 400)
    }

    func webSocketHandshake() async throws {
        let socket = try await webSocket()
        try Self.assertHandshake(try await socket.nextText("the handshake"), upgrades: [])
        socket.drop()
    }

    /// The JavaScript case does not await its close promises; the READMEs say the server MUST
    /// close the connection: here the upgrade is refused (400).
    func webSocketInvalidQuery(_ query: String) async throws {
        let result = try await RawWebSocket.connect(port: port, target: path + query)
        guard case .failure(let refusal) = result else {
            Issue.record("the WebSocket with \(query) was accepted")
            return
        }
        #expect(refusal.reply.status == 400)
    }

    static let invalidWebSocketQueries = ["?transport=websocket", "?EIO=abc&transport=websocket", "?EIO=4", "?EIO=4&transport=abc"]

    // MARK: - heartbeat

    func pollingPingPong() async throws {
        let sid = try await openPolling()
        for _ in 0..<3 {
            let get = try await HTTPClient.get(port: port, polling("&sid=\(sid)"))
            #expect(get.status == 200)
            #expect(get.text == "2")
            let pong = try await HTTPClient.post(port: port, polling("&sid=\(sid)"), body: "3")
            #expect(pong.status == 200)
        }
    }

    /// The JavaScript case sleeps pingInterval + pingTimeout; here the test waits for the
    /// server's close event instead of the clock.
    func pollingPingTimeout() async throws {
        let sid = try await openPolling()
        #expect(try await demo.events.closeReason(of: sid) == "ping timeout")
        let next = try await HTTPClient.get(port: port, polling("&sid=\(sid)"))
        #expect(next.status == 400)
    }

    func webSocketPingPong() async throws {
        let socket = try await webSocket()
        _ = try await socket.nextText("the handshake")
        for _ in 0..<3 {
            #expect(try await socket.nextText("a ping") == "2")
            try socket.send(text: "3")
        }
        socket.drop()
    }

    func webSocketPingTimeout() async throws {
        let socket = try await webSocket()
        _ = try await socket.nextText("the handshake")
        try await socket.waitForClose()
    }

    // MARK: - close

    /// The JavaScript case sends the GET and the POST together and relies on the GET arriving
    /// first; here the POST starts once the server holds the GET.
    func pollingClose() async throws {
        let sid = try await openPolling()
        let held = Task { try await HTTPClient.get(port: port, polling("&sid=\(sid)")) }
        try await waitUntilHolding(sid)
        _ = try await HTTPClient.post(port: port, polling("&sid=\(sid)"), body: "1")
        let get = try await held.value
        #expect(get.status == 200)
        #expect(get.text == "6")
        let next = try await HTTPClient.get(port: port, polling("&sid=\(sid)"))
        #expect(next.status == 400)
    }

    func webSocketClose() async throws {
        let socket = try await webSocket()
        _ = try await socket.nextText("the handshake")
        try socket.send(text: "1")
        try await socket.waitForClose()
    }

    // MARK: - upgrade

    /// Probe, upgrade; with `echoing` (the Engine.IO suite) also the noop that ends a poll made
    /// during the upgrade and an echo over the WebSocket.
    func upgrade(echoing: Bool) async throws {
        let sid = try await openPolling()
        let socket = try await webSocket("&sid=\(sid)")
        try socket.send(text: "2probe")
        #expect(try await socket.nextText("the probe's answer") == "3probe")
        if echoing {
            let get = try await HTTPClient.get(port: port, polling("&sid=\(sid)"))
            #expect(get.status == 200)
            #expect(get.text == "6", "a noop ends the poll cleanly during the upgrade")
        }
        try socket.send(text: "5")
        if echoing {
            try socket.send(text: "4hello")
            #expect(try await Self.nextMessage(socket) == .text("4hello"))
        } else {
            try await demo.events.wait("the upgrade") { if case .sessionUpgraded(sid) = $0 { true } else { false } }
        }
        socket.drop()
    }

    /// A polling session upgraded by a WebSocket that sends `2probe` and `5` back to back (not
    /// waiting for `3probe`), returned once the server has switched (the JavaScript cases rely on
    /// timing for that).
    func upgradedSession() async throws -> (sid: String, socket: RawWebSocket) {
        let sid = try await openPolling()
        let socket = try await webSocket("&sid=\(sid)")
        try socket.send(text: "2probe")
        try socket.send(text: "5")
        try await demo.events.wait("the upgrade") { if case .sessionUpgraded(sid) = $0 { true } else { false } }
        return (sid, socket)
    }

    func pollingAfterUpgrade(echoing: Bool) async throws {
        let (sid, socket) = try await upgradedSession()
        let get = try await HTTPClient.get(port: port, polling("&sid=\(sid)"))
        #expect(get.status == 400)
        if echoing {
            try socket.send(text: "4hello")
            #expect(try await Self.nextMessage(socket) == .text("4hello"))
        }
        socket.drop()
    }

    func webSocketAfterUpgrade(echoing: Bool) async throws {
        let (sid, socket) = try await upgradedSession()
        switch try await RawWebSocket.connect(port: port, target: "\(path)?EIO=4&transport=websocket&sid=\(sid)") {
        case .failure(let refusal):
            #expect(refusal.reply.status == 400)
        case .success(let again):
            try await again.waitForClose()
        }
        if echoing {
            try socket.send(text: "4hello")
            #expect(try await Self.nextMessage(socket) == .text("4hello"))
        }
        socket.drop()
    }
}
