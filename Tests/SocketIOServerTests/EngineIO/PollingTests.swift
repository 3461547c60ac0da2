import Foundation
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

@Suite("Engine.IO over HTTP long-polling")
struct PollingTests {
    @Test("handshake: open packet with sid, upgrades, heartbeat and maxPayload")
    func handshake() async throws {
        try await DemoServer.with({ $0.pingInterval = .seconds(7); $0.pingTimeout = .seconds(3) }) { demo in
            let reply = try await HTTPClient.get(port: demo.port, "/socket.io/?EIO=4&transport=polling&t=abc")
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/plain; charset=UTF-8")
            #expect(reply.text.hasPrefix("0{"))
            let handshake = try EngineHandshake(json: String(reply.text.dropFirst()))
            #expect(handshake.sid.count == 20)
            #expect(handshake.upgrades == ["websocket"])
            #expect(handshake.pingInterval == 7000)
            #expect(handshake.pingTimeout == 3000)
            #expect(handshake.maxPayload == 1_000_000)
            #expect(reply.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test("CONNECT over polling: 40 → 40{\"sid\"}, then events and acks")
    func connectAndEvents() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            let posted = try await client.post(["40"])
            #expect(posted.status == 200)
            #expect(posted.text == "ok")
            let reply = try await client.receive(1)
            #expect(reply.count == 1)
            let connect = try #require(reply.first)
            #expect(connect.hasPrefix("40{\"sid\":\""))
            let sid = try JSONValue(parsing: String(connect.dropFirst(2)))["sid"]?.stringValue
            #expect(sid != nil && sid != client.sid)

            try await client.post([#"42["echo","hello",1]"#, #"421["ack",{"a":[true,null]}]"#])
            let packets = try await client.receive(2)
            #expect(packets == [#"42["echo","hello",1]"#, #"431[{"a":[true,null]}]"#])
        }
    }

    @Test("binary attachments both ways travel as b<base64> records")
    func binary() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            try await client.post(["40"])
            _ = try await client.receive(1)
            try await client.post([#"451-["binary",{"_placeholder":true,"num":0}]"#, "bAQIDBA=="])
            let packets = try await client.receive(2)
            #expect(packets == [#"451-["binary",{"_placeholder":true,"num":0}]"#, "bAQIDBA=="])
        }
    }

    /// As the reference server: the client's `close` releases its pending GET with `6` (noop),
    /// and the session is gone.
    @Test("the client's close with a GET pending: the GET gets 6, then the session is unknown")
    func clientCloseReleasesThePendingGETWithANoop() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            let pending = Task { try await client.get() }
            // The GET is held once the server has nothing to send; wait until it is.
            try await withTimeout(10, "the GET being held") {
                while !demo.server.holdsPoll(sid: client.sid) { await Task.yield() }
            }
            #expect(try await client.post(["1"]).status == 200)
            let released = try await withTimeout(10, "the pending GET") { try await pending.value }
            #expect(released.status == 200)
            #expect(released.text == "6")
            #expect(try await client.get().status == 400)
        }
    }

    @Test("a held GET is answered as soon as the server emits")
    func longPoll() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            try await client.post(["40"])
            let connect = try await client.receive(1)
            let id = try #require(try JSONValue(parsing: String(connect[0].dropFirst(2)))["sid"]?.stringValue)
            // Whether the GET is already held when the server emits or arrives just after, it
            // returns with the event.
            let held = Task { try await client.get() }
            let socket = try #require(demo.server.namespace("/").socket(id: id))
            socket.emit("news", "late")
            let reply = try await withTimeout(10, "the held GET") { try await held.value }
            #expect(reply.packets == [#"42["news","late"]"#])
        }
    }

    /// A GET of `client`'s session sent on a connection of its own, once the server holds it.
    static func heldGET(of client: PollingClient, on demo: DemoServer) async throws -> RawConnection {
        let raw = try RawConnection.connect(port: demo.port)
        try raw.write("GET \(client.target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        try await withTimeout(10, "the GET being held") {
            while !demo.server.holdsPoll(sid: client.sid) { await Task.yield() }
        }
        return raw
    }

    @Test("a held GET whose connection closes closes the session (poll connection closed prematurely), as socket.io's server does")
    func heldPollCutClosesTheSession() async throws {
        // Whatever the server wrote to that GET later would be lost: the session ends instead,
        // at once, rather than at the next ping timeout.
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            let raw = try await Self.heldGET(of: client, on: demo)
            raw.close()
            let closed = try await demo.events.wait("the session closed") {
                if case .sessionClosed(client.sid, _) = $0 { return true }
                return false
            }
            #expect(closed == .sessionClosed(sid: client.sid, reason: "transport error: poll connection closed prematurely"))
            #expect(try await client.get().status == 400)
        }
    }

    @Test("a GET answered, then its connection closed: the session goes on")
    func answeredPollThenCloseKeepsTheSession() async throws {
        try await DemoServer.with { demo in
            let client = try await PollingClient.open(port: demo.port)
            let raw = try await Self.heldGET(of: client, on: demo)
            #expect(try await client.post(["40"]).status == 200)
            let answer = try await raw.read { bytes -> (String, consumed: Int)? in
                let text = String(decoding: bytes, as: UTF8.self)
                return text.contains("40{") ? (text, bytes.count) : nil
            }
            #expect(answer.hasPrefix("HTTP/1.1 200"))
            raw.close()
            // The next GET is answered from the same session (a ping at the latest would do; an
            // emit now).
            let held = Task { try await client.get() }
            try await withTimeout(10, "the next GET being held") {
                while !demo.server.holdsPoll(sid: client.sid) { await Task.yield() }
            }
            demo.server.namespace("/").emit("still", "here")
            let reply = try await withTimeout(10, "the next GET") { try await held.value }
            #expect(reply.packets == [#"42["still","here"]"#])
        }
    }

    /// A polling session closed with no GET held lingers for its last packets; closed again
    /// meanwhile (the app again, the server stopping) it is reported closed once, so
    /// `engineio_sessions_open` counts it once, and its next GET still gets them.
    @Test("a lingering session closed again is reported closed once; its next GET still gets close")
    func closedAgainWhileLingering() async throws {
        try await DemoServer.with { demo in
            func joined() async throws -> (client: PollingClient, socket: ServerSocket) {
                let client = try await PollingClient.open(port: demo.port)
                try await client.post(["40"])
                let connect = try await client.receive(1)
                let id = try #require(try JSONValue(parsing: String(connect[0].dropFirst(2)))["sid"]?.stringValue)
                return (client, try #require(demo.server.namespace("/").socket(id: id)))
            }
            let first = try await joined()
            first.socket.disconnect(close: true)  // no GET held: the session lingers
            first.socket.disconnect(close: true)
            let last = try await first.client.get()
            #expect(last.status == 200)
            #expect(last.packets.last == "1", "the session kept its close for this GET: \(last.packets)")
            let second = try await joined()
            second.socket.disconnect(close: true)
            await demo.stop()
            let closed = demo.events.all.compactMap { event -> String? in
                if case .sessionClosed(let sid, _) = event { return sid }
                return nil
            }
            #expect(closed.filter { $0 == first.client.sid }.count == 1)
            #expect(closed.filter { $0 == second.client.sid }.count == 1)
        }
    }
}
