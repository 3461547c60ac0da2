import Foundation
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The official Socket.IO protocol suite (`socketio/socket.io-protocol`, `test-suite/test-suite.js`),
/// every case ported against the Socket.IO server configured as the suite's README says:
/// `/socket.io/`, pingInterval 300 ms, pingTimeout 200 ms, maxPayload 1,000,000, connectTimeout
/// 1 s; `/` and `/custom` emit `auth` with the CONNECT payload, `/` answers `message` with
/// `message-back` and acknowledges `message-with-ack` with its arguments. The Engine.IO part runs
/// the same cases as the Engine.IO suite (``EngineProtocolCases``). As there, only the handshake
/// and ping-timeout cases use the suite's 300 ms / 200 ms heartbeat and only the no-handshake
/// case its 1 s connect timeout; the others run with 30 s to answer a ping, or the defaults, so
/// that a slow machine does not close their sessions under them.
@Suite("Socket.IO protocol suite")
struct SocketIOProtocolSuiteTests {
    static let path = "/socket.io/"

    static func withSuiteServer(
        _ heartbeat: SuiteHeartbeat = .relaxed,
        connectTimeout: Duration = .seconds(45),
        _ body: (EngineProtocolCases) async throws -> Void
    ) async throws {
        // Every case twice: on the server's own listener, then mounted on a Hummingbird
        // application of the test's own (one port for the app's routes and Socket.IO).
        for mounted in [false, true] {
          try await DemoServer.with({ configuration in
            configuration.pingInterval = heartbeat.pingInterval
            configuration.pingTimeout = heartbeat.pingTimeout
            configuration.maxPayload = 1_000_000
            configuration.connectTimeout = connectTimeout
          }, installingDemo: false, mounted: mounted, setup: { server in
            server.namespace("/").onConnection { socket in
                socket.emit("auth", .object(socket.handshake.auth ?? [:]))
                socket.on("message") { event in socket.emit("message-back", items: event.items) }
                socket.on("message-with-ack") { event in event.ack?.respond(event.items) }
            }
            server.namespace("/custom").onConnection { socket in
                socket.emit("auth", .object(socket.handshake.auth ?? [:]))
            }
          }) { demo in
            try await body(EngineProtocolCases(demo: demo, path: path))
          }
        }
    }

    // MARK: - Engine.IO: handshake

    @Test("Engine.IO handshake, HTTP long-polling: should successfully open a session")
    func pollingHandshake() async throws { try await Self.withSuiteServer(.suite) { try await $0.pollingHandshake() } }

    @Test("Engine.IO handshake, HTTP long-polling: should fail with an invalid 'EIO' query parameter")
    func pollingInvalidEIO() async throws { try await Self.withSuiteServer(.suite) { try await $0.pollingInvalidEIO() } }

    @Test("Engine.IO handshake, HTTP long-polling: should fail with an invalid 'transport' query parameter")
    func pollingInvalidTransport() async throws { try await Self.withSuiteServer(.suite) { try await $0.pollingInvalidTransport() } }

    @Test("Engine.IO handshake, HTTP long-polling: should fail with an invalid request method")
    func pollingInvalidMethod() async throws { try await Self.withSuiteServer(.suite) { try await $0.pollingInvalidMethod() } }

    @Test("Engine.IO handshake, WebSocket: should successfully open a session")
    func webSocketHandshake() async throws { try await Self.withSuiteServer(.suite) { try await $0.webSocketHandshake() } }

    @Test("Engine.IO handshake, WebSocket: should fail with an invalid 'EIO' or 'transport' query parameter",
          arguments: EngineProtocolCases.invalidWebSocketQueries)
    func webSocketInvalidQuery(_ query: String) async throws {
        try await Self.withSuiteServer { try await $0.webSocketInvalidQuery(query) }
    }

    // MARK: - Engine.IO: heartbeat, close, upgrade

    @Test("Engine.IO heartbeat, HTTP long-polling: should send ping/pong packets")
    func pollingPingPong() async throws {
        try await Self.withSuiteServer(.pingPong) { try await $0.pollingPingPong() }
    }

    @Test("Engine.IO heartbeat, HTTP long-polling: should close the session upon ping timeout")
    func pollingPingTimeout() async throws { try await Self.withSuiteServer(.suite) { try await $0.pollingPingTimeout() } }

    @Test("Engine.IO heartbeat, WebSocket: should send ping/pong packets")
    func webSocketPingPong() async throws {
        try await Self.withSuiteServer(.pingPong) { try await $0.webSocketPingPong() }
    }

    @Test("Engine.IO heartbeat, WebSocket: should close the session upon ping timeout")
    func webSocketPingTimeout() async throws { try await Self.withSuiteServer(.suite) { try await $0.webSocketPingTimeout() } }

    @Test("Engine.IO close, HTTP long-polling: should forcefully close the session")
    func pollingClose() async throws { try await Self.withSuiteServer { try await $0.pollingClose() } }

    @Test("Engine.IO close, WebSocket: should forcefully close the session")
    func webSocketClose() async throws { try await Self.withSuiteServer { try await $0.webSocketClose() } }

    @Test("Engine.IO upgrade: should successfully upgrade from HTTP long-polling to WebSocket")
    func upgrade() async throws { try await Self.withSuiteServer { try await $0.upgrade(echoing: false) } }

    @Test("Engine.IO upgrade: should ignore HTTP requests with same sid after upgrade")
    func pollingAfterUpgrade() async throws { try await Self.withSuiteServer { try await $0.pollingAfterUpgrade(echoing: false) } }

    @Test("Engine.IO upgrade: should ignore WebSocket connection with same sid after upgrade")
    func webSocketAfterUpgrade() async throws { try await Self.withSuiteServer { try await $0.webSocketAfterUpgrade(echoing: false) } }

    // MARK: - Socket.IO: helpers

    /// A WebSocket session past the Engine.IO handshake.
    static func openSession(_ cases: EngineProtocolCases) async throws -> RawWebSocket {
        let socket = try await cases.webSocket()
        _ = try await socket.nextText("the Engine.IO handshake")
        return socket
    }

    /// `initSocketIOConnection()`: joined `/`, its CONNECT reply and `auth` event read.
    static func openConnection(_ cases: EngineProtocolCases) async throws -> RawWebSocket {
        let socket = try await openSession(cases)
        try socket.send(text: "40")
        _ = try await nextPackets(1, socket)
        _ = try await nextPackets(1, socket)
        return socket
    }

    /// `waitForPackets(socket, count)`: the next `count` frames, pings skipped — and answered,
    /// so that on a slow machine a ping that came during the handshake does not leave the
    /// session to time out (the server pings again only after a pong).
    static func nextPackets(_ count: Int, _ socket: RawWebSocket) async throws -> [RawWebSocket.Message] {
        var packets: [RawWebSocket.Message] = []
        while packets.count < count {
            let message = try await withTimeout(30, "a packet") { try await socket.next() }
            if message == .text("2") {
                try socket.send(text: "3")
                continue
            }
            packets.append(message)
        }
        return packets
    }

    /// The CONNECT reply `prefix{"sid":…}`: exactly the key `sid`, a string.
    static func expectConnectReply(_ message: RawWebSocket.Message, prefix: String) throws {
        guard case .text(let text) = message, text.hasPrefix(prefix) else {
            Issue.record("expected \(prefix){…}, got \(message)")
            return
        }
        let value = try JSONValue(parsing: String(text.dropFirst(prefix.count)))
        guard case .object(let object) = value else {
            Issue.record("not an object: \(text)")
            return
        }
        #expect(Array(object.keys) == ["sid"])
        #expect(value["sid"]?.stringValue != nil)
    }

    // MARK: - Socket.IO: connect

    @Test("Socket.IO connect: should allow connection to the main namespace (with and without a payload)",
          arguments: [("40", "{}"), (#"40{"token":"123"}"#, #"{"token":"123"}"#)])
    func connectMain(_ connect: String, _ auth: String) async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openSession(cases)
            try socket.send(text: connect)
            try Self.expectConnectReply(try await Self.nextPackets(1, socket)[0], prefix: "40")
            #expect(try await Self.nextPackets(1, socket) == [.text(#"42["auth",\#(auth)]"#)])
            socket.drop()
        }
    }

    @Test("Socket.IO connect: should allow connection to a custom namespace (with and without a payload)",
          arguments: [("40/custom,", "{}"), (#"40/custom,{"token":"abc"}"#, #"{"token":"abc"}"#)])
    func connectCustom(_ connect: String, _ auth: String) async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openSession(cases)
            try socket.send(text: connect)
            try Self.expectConnectReply(try await Self.nextPackets(1, socket)[0], prefix: "40/custom,")
            #expect(try await Self.nextPackets(1, socket) == [.text(#"42/custom,["auth",\#(auth)]"#)])
            socket.drop()
        }
    }

    @Test("Socket.IO connect: should disallow connection to an unknown namespace")
    func connectUnknown() async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openSession(cases)
            try socket.send(text: "40/random")
            #expect(try await Self.nextPackets(1, socket) == [.text(#"44/random,{"message":"Invalid namespace"}"#)])
            socket.drop()
        }
    }

    /// Closed for the packet: the server's close reason says so (the heartbeat, which the
    /// JavaScript timing would also allow, says `ping timeout`).
    static func expectClosedForBadInput(_ send: String, _ cases: EngineProtocolCases, connected: Bool) async throws {
        let socket = try await cases.webSocket()
        let handshake = try JSONValue(parsing: String(try await socket.nextText("the handshake").dropFirst()))
        let sid = try #require(handshake["sid"]?.stringValue)
        if connected {
            try socket.send(text: "40")
            _ = try await nextPackets(2, socket)
        }
        try socket.send(text: send)
        try await socket.waitForClose()
        #expect(try await cases.demo.events.closeReason(of: sid).hasPrefix("parse error"))
    }

    @Test("Socket.IO connect: should disallow connection with an invalid handshake")
    func connectInvalid() async throws {
        try await Self.withSuiteServer { try await Self.expectClosedForBadInput("4abc", $0, connected: false) }
    }

    /// With the heartbeat answered, so that only the connect timeout can close it.
    @Test("Socket.IO connect: should close the connection if no handshake is received")
    func connectTimeout() async throws {
        try await Self.withSuiteServer(.pingPong, connectTimeout: .seconds(1)) { cases in
            let socket = try await cases.webSocket()
            let handshake = try JSONValue(parsing: String(try await socket.nextText("the handshake").dropFirst()))
            let sid = try #require(handshake["sid"]?.stringValue)
            let answering = Task {
                while let message = try? await socket.next(), message != .close(nil) {
                    if message == .text("2") { try? socket.send(text: "3") }
                    if case .close = message { return }
                }
            }
            #expect(try await cases.demo.events.closeReason(of: sid) == "forced close")
            answering.cancel()
        }
    }

    // MARK: - Socket.IO: disconnect

    @Test("Socket.IO disconnect: should disconnect from the main namespace")
    func disconnectMain() async throws {
        try await Self.withSuiteServer(.pingPong) { cases in
            let socket = try await Self.openConnection(cases)
            try socket.send(text: "41")
            // Nothing in answer, the connection stays: the next frame is the heartbeat's ping.
            // (A hang guard, not a timing: on a starved machine the 300 ms ping can come late.)
            #expect(try await withTimeout(60, "the ping") { try await socket.next() } == .text("2"))
            socket.drop()
        }
    }

    @Test("Socket.IO disconnect: should connect then disconnect from a custom namespace")
    func disconnectCustom() async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openConnection(cases)
            try socket.send(text: "40/custom")
            _ = try await Self.nextPackets(2, socket)
            try socket.send(text: "41/custom")
            try socket.send(text: #"42["message","message to main namespace"]"#)
            #expect(try await Self.nextPackets(1, socket) == [.text(#"42["message-back","message to main namespace"]"#)])
            socket.drop()
        }
    }

    // MARK: - Socket.IO: message

    @Test("Socket.IO message: should send a plain-text packet")
    func plainText() async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openConnection(cases)
            try socket.send(text: #"42["message",1,"2",{"3":[true]}]"#)
            #expect(try await Self.nextPackets(1, socket) == [.text(#"42["message-back",1,"2",{"3":[true]}]"#)])
            socket.drop()
        }
    }

    @Test("Socket.IO message: should send a packet with binary attachments")
    func binaryAttachments() async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openConnection(cases)
            try socket.send(text: #"452-["message",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
            try socket.send(binary: [1, 2, 3])
            try socket.send(binary: [4, 5, 6])
            #expect(try await Self.nextPackets(3, socket) == [
                .text(#"452-["message-back",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#),
                .binary([1, 2, 3]),
                .binary([4, 5, 6]),
            ])
            socket.drop()
        }
    }

    @Test("Socket.IO message: should send a plain-text packet with an ack")
    func plainTextWithAck() async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openConnection(cases)
            try socket.send(text: #"42456["message-with-ack",1,"2",{"3":[false]}]"#)
            #expect(try await Self.nextPackets(1, socket) == [.text(#"43456[1,"2",{"3":[false]}]"#)])
            socket.drop()
        }
    }

    @Test("Socket.IO message: should send a packet with binary attachments and an ack")
    func binaryAttachmentsWithAck() async throws {
        try await Self.withSuiteServer { cases in
            let socket = try await Self.openConnection(cases)
            try socket.send(text: #"452-789["message-with-ack",{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
            try socket.send(binary: [1, 2, 3])
            try socket.send(binary: [4, 5, 6])
            #expect(try await Self.nextPackets(3, socket) == [
                .text(#"462-789[{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#),
                .binary([1, 2, 3]),
                .binary([4, 5, 6]),
            ])
            socket.drop()
        }
    }

    @Test("Socket.IO message: should close the connection upon invalid format",
          arguments: ["4abc", "42{}", #"42abc["message-with-ack",1,"2",{"3":[false]}]"#])
    func invalidFormat(_ packet: String) async throws {
        try await Self.withSuiteServer { try await Self.expectClosedForBadInput(packet, $0, connected: true) }
    }
}
