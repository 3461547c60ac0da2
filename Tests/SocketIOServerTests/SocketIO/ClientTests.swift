import Foundation
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Switchboard's own client (module SocketIO, WebSocket transport) against the server.
@Suite("Our client against the server")
struct ClientTests {
    static func manager(_ demo: DemoServer) throws -> Manager {
        var configuration = Manager.Configuration()
        configuration.defaultAckTimeout = .seconds(10)
        configuration.connectTimeout = .seconds(10)
        return try Manager(url: demo.url, configuration: configuration)
    }

    @Test("connect, echo, acks both ways, binary")
    func basics() async throws {
        try await DemoServer.with { demo in
            let manager = try Self.manager(demo)
            let socket = manager.socket(namespace: "/")
            try await withTimeout(10, "connect") { try await socket.connect() }
            #expect(socket.id != nil)

            let echoes = socket.events(named: "echo")
            try socket.emit("echo", "hello", 42, ["nested": [true, nil]])
            let echo = try #require(try await echoes.first(1, "the echo").first)
            #expect(echo.items == ["hello", 42, ["nested": [true, nil]]])

            // Client → server ack.
            let reply = try await socket.emitWithAck("ack", "question", 7)
            #expect(reply == ["question", 7])

            // Server → client ack.
            socket.on("server-ack") { event in event.ack?("answer from the client") }
            let results = socket.events(named: "server-ack-result")
            try socket.emit("server-ack", "ask me")
            let result = try #require(try await results.first(1, "the server's ack result").first)
            #expect(result.items == ["answer from the client"])

            // Binary both ways.
            let bytes = Data([0, 1, 2, 254, 255])
            let binaryReply = try await socket.emitWithAck("binary", .binary(bytes), ["deep": .binary(Data([9]))])
            #expect(binaryReply == [.binary(bytes), ["deep": .binary(Data([9]))]])
            await manager.close()
        }
    }

    @Test("auth hook: accepted with the token; refused with the server's message and data")
    func auth() async throws {
        try await DemoServer.with { demo in
            let manager = try Self.manager(demo)
            let refused = manager.socket(namespace: "/chat", auth: .static(["token": "wrong"]))
            await #expect(throws: SocketIOError.connectError(message: "unauthorized", data: ["reason": "bad token"])) {
                try await withTimeout(10, "refusal") { try await refused.connect() }
            }
            let otherManager = try Self.manager(demo)
            let accepted = otherManager.socket(namespace: "/chat", auth: .static(["token": "secret"]))
            try await withTimeout(10, "connect") { try await accepted.connect() }
            #expect(try await accepted.emitWithAck("ack", "in") == ["in"])
            await manager.close()
            await otherManager.close()
        }
    }

    @Test("rooms and broadcast across three clients")
    func roomsAndBroadcast() async throws {
        try await DemoServer.with { demo in
            let managers = try (0..<3).map { _ in try Self.manager(demo) }
            let sockets = managers.map { $0.socket(namespace: "/chat", auth: .static(["token": "secret"])) }
            for socket in sockets { try await withTimeout(10, "connect") { try await socket.connect() } }
            let (alice, bob, carol) = (sockets[0], sockets[1], sockets[2])
            #expect(try await alice.emitWithAck("join", "room1") == ["room1"])
            #expect(try await bob.emitWithAck("join", "room1") == ["room1"])

            let aliceRoom = alice.events(named: "room-message")
            let bobRoom = bob.events(named: "room-message")
            let carolRoom = carol.events(named: "room-message")
            // Carol is not in the room; the room gets it, she does not.
            #expect(try await carol.emitWithAck("room-message", "room1", "hi room") == [2])
            #expect(try await aliceRoom.first(1).first?.items == ["room1", "hi room"])
            #expect(try await bobRoom.first(1).first?.items == ["room1", "hi room"])

            // Everyone but the sender.
            let bobAll = bob.events(named: "broadcast")
            let carolAll = carol.events(named: "broadcast")
            let aliceAll = alice.events(named: "broadcast")
            #expect(try await alice.emitWithAck("broadcast", "to all but me") == [2])
            #expect(try await bobAll.first(1).first?.items == ["to all but me"])
            #expect(try await carolAll.first(1).first?.items == ["to all but me"])

            // Alice leaves the room: a room message now reaches only Bob.
            #expect(try await alice.emitWithAck("leave", "room1") == ["room1"])
            #expect(try await carol.emitWithAck("room-message", "room1", "second") == [1])
            #expect(try await bobRoom.first(1).first?.items == ["room1", "second"])
            #expect(try await bob.emitWithAck("broadcast", "from bob") == [2])
            #expect(try await aliceAll.first(1).first?.items == ["from bob"])
            withExtendedLifetime(carolRoom) {}
            for manager in managers { await manager.close() }
        }
    }

    @Test("a server disconnect ends the socket with io server disconnect")
    func serverDisconnect() async throws {
        try await DemoServer.with { demo in
            let manager = try Self.manager(demo)
            let socket = manager.socket(namespace: "/")
            try await withTimeout(10, "connect") { try await socket.connect() }
            let statuses = socket.statusChanges
            try socket.emit("kick")
            let status = try await statuses.firstMatch(within: 10, "the disconnect") {
                if case .disconnected = $0 { return true }
                return false
            }
            #expect(status == .disconnected(.ioServerDisconnect))
            await manager.close()
        }
    }
}
