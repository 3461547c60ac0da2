import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SwitchboardTestSupport
import Testing

/// The client against python-socketio's server, an independent implementation run unmodified
/// with its default CORS setting (so a stray `Origin` header would be refused).
@Suite("Interop with python-socketio servers")
struct PythonServerInteropTests {
    @Test(arguments: InteropTarget.all)
    func connectsAndGetsEventsSentBeforeTheConnectReply(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let events = socket.allEvents()
        try await target.connect(manager, socket)
        #expect(socket.connected)
        let id = try #require(socket.id)
        if target.version == .v4 {
            #expect(id != manager.handshake?.sid, "a v5 Socket.IO id differs from the Engine.IO sid")
        } else {
            #expect(id == manager.handshake?.sid, "a v4 Socket.IO id for / is the Engine.IO sid")
        }
        // python emits `welcome` in its connect handler, before the CONNECT reply.
        let first = try await events.first(1)
        #expect(first.first?.name == "welcome")
        #expect(first.first?.items == ["hi"])
        await manager.close()
        #expect(socket.status == .disconnected(.ioClientDisconnect))
    }

    @Test(arguments: InteropTarget.all)
    func authProtectedNamespaceRefusesWithTheServersDataThenAccepts(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        // v5 carries auth in CONNECT; the v4 test server reads `token` from the Engine.IO query.
        let (badManager, bad) = try target.manager(for: server, namespace: "/chat", auth: .static(["token": "wrong"])) {
            if target.authTravelsInQuery { $0.query = [URLQueryItem(name: "token", value: "wrong")] }
        }
        let refusal: SocketIOError = target.version == .v4
            ? .connectError(message: "unauthorized", data: ["reason": "bad token"])
            : .connectError(message: "unauthorized", data: nil)
        await #expect(throws: refusal) {
            try await withTimeout(10, "refused connect") { try await bad.connect() }
        }
        #expect(!bad.connected)
        await badManager.close()

        let calls = Counter()
        let (manager, chat) = try target.manager(for: server, namespace: "/chat", auth: .provider {
            calls.increment()
            return ["token": "secret"]
        }) {
            if target.authTravelsInQuery { $0.query = [URLQueryItem(name: "token", value: "secret")] }
        }
        try await target.connect(manager, chat)
        #expect(chat.connected)
        #expect(calls.value == 1, "the auth provider is called on connect")
        let reply = try await chat.emitWithAck("ack", "in chat")
        #expect(reply == ["in chat"])
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func echoesEveryJSONKind(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let echoes = socket.events(named: "echo")
        try await target.connect(manager, socket)
        let items: [JSONValue] = [1, -2.5, "two €😀", true, .null, ["three": [3, ["deep": "x"]]], []]
        try socket.emit("echo", items: items)
        let echoed = try await echoes.first(1)
        #expect(echoed.first?.items == items)
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func acksBothWays(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        // Server → client ack: the server asks, we answer, the server reports what it got.
        socket.on("server-ack") { event in
            event.ack?.respond(["pong"] + event.items)
        }
        let results = socket.events(named: "server-ack-result")
        try await target.connect(manager, socket)

        // Client → server ack.
        let reply = try await socket.emitWithAck("ack", 1, "two", ["three": 3])
        #expect(reply == [1, "two", ["three": 3]])

        try socket.emit("server-ack", "ping", 7)
        let result = try await results.first(1)
        #expect(result.first?.items == ["pong", "ping", 7])
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func binaryAttachmentsRoundTripByteExact(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let echoes = socket.events(named: "binary")
        try await target.connect(manager, socket)
        let first = Data((0...255).map { UInt8($0) })
        let second = Data([0, 0xff, 0x1e, 0x0a, 0x22])
        let items: [JSONValue] = ["two attachments", .binary(first), ["nested": ["deeper": .binary(second)]]]
        try socket.emit("binary", items: items)
        let echoed = try #require(try await echoes.first(1).first)
        #expect(echoed.items == items)
        #expect(echoed.items[1].binaryValue == first)
        #expect(echoed.items[2]["nested"]?["deeper"]?.binaryValue == second)

        // And through an ack: the server acks `binary` with the same args.
        let acked = try await socket.emitWithAck("binary", items: items)
        #expect(acked == items)
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func thousandEventsArriveInOrderBothWays(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let items = socket.events(named: "burst-item")
        let echoes = socket.events(named: "echo")
        try await target.connect(manager, socket)

        // Server → client.
        try socket.emit("burst", 1000)
        let burst = try await items.first(1000, within: 30, "burst")
        #expect(burst.map { $0.items.first?.intValue } == (0..<1000).map { $0 })

        // Client → server → client.
        for i in 0..<1000 { try socket.emit("echo", .number(Double(i))) }
        let echoed = try await echoes.first(1000, within: 30, "echoes")
        #expect(echoed.map { $0.items.first?.intValue } == (0..<1000).map { $0 })
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func serverSideDisconnectIsIoServerDisconnectAndFailsPendingAcks(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let disconnects = socket.events(named: "disconnect")
        try await target.connect(manager, socket)
        // python-socketio 4.x over polling loses its `41` when no GET is pending at that moment
        // (the next GET gets HTTP 500: see peers.md), so there the client can only see a
        // transport error. Every other row must say `io server disconnect`.
        let lossy = target.peer == .v3 && target.mode == .polling
        // The server disconnects us inside the handler, before it could ack: the ack must fail,
        // typed, never hang.
        await #expect {
            _ = try await socket.emitWithAck("kick", timeout: .seconds(10))
        } throws: { error in
            guard case SocketIOError.disconnected(let reason) = error else { return false }
            return reason == .ioServerDisconnect || (lossy && reason.isRecoverable)
        }
        let event = try await disconnects.first(1)
        if lossy {
            #expect(["io server disconnect", "transport error", "transport close"].contains(event.first?.items.first?.stringValue ?? ""))
        } else {
            #expect(event.first?.items == ["io server disconnect"])
            #expect(socket.status == .disconnected(.ioServerDisconnect))
        }
        await manager.close()
    }

    /// python-socketio 5.x refuses an unknown namespace; 4.x accepts any namespace (a peer fact).
    @Test(arguments: InteropTarget.all.filter { $0.peer == .v5 })
    func unknownNamespaceIsRefused(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server, namespace: "/nope")
        await #expect(throws: SocketIOError.connectError(message: "Unable to connect", data: nil)) {
            try await withTimeout(10, "refused connect") { try await socket.connect() }
        }
        #expect(!socket.connected)
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func extraHeadersReachTheServerAndNoOriginIsSent(_ target: InteropTarget) async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server) { configuration in
            configuration.extraHeaders = [("X-Switchboard-Test", "yes"), ("Authorization", "Bearer t0k")]
        }
        try await target.connect(manager, socket)
        let reply = try await socket.emitWithAck("headers")
        let headers = try #require(reply.first?.objectValue)
        #expect(headers["x-switchboard-test"] == "yes")
        #expect(headers["authorization"] == "Bearer t0k")
        #expect(headers["origin"] == nil)
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func codablePayloadsBothWays(_ target: InteropTarget) async throws {
        struct Order: Codable, Equatable, Sendable {
            var number: String
            var quantity: Int
            var thumbnail: Data
            var note: String?
        }
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let orders = socket.events(named: "binary", as: Order.self)
        try await target.connect(manager, socket)
        let order = Order(number: "TAINIUBILE1234", quantity: 3, thumbnail: Data([9, 8, 7]), note: nil)
        try socket.emit("binary", encoding: order)
        let received = try await orders.first(1)
        #expect(received == [order])
        await manager.close()
    }

    @Test(arguments: InteropTarget.all)
    func survivesThreePingIntervals(_ target: InteropTarget) async throws {
        // A server of its own with a short heartbeat: 500 ms interval (the v4 server pings, the
        // v3 client pings), and room for a loaded machine in the timeout.
        guard let server = try await PythonPeer.start(target.peer, arguments: ["--ping-interval", "0.5", "--ping-timeout", "5"]) else { return }
        defer { Task.detached { await server.stopped() } }
        let (manager, socket) = try target.manager(for: server)
        let heartbeats = manager.events
        try await target.connect(manager, socket)
        // Three heartbeats, or the first close (which fails the test with its reason).
        let seen = try await heartbeats.filter { event in
            if case .close = event { return true }
            return event == .ping
        }.first(3, within: 20, "three heartbeats")
        #expect(seen == [.ping, .ping, .ping])
        #expect(socket.connected)
        let reply = try await socket.emitWithAck("ack", "still here")
        #expect(reply == ["still here"])
        await manager.close()
    }
}

/// A thread-safe counter for callbacks.
final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)
    func increment() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}
