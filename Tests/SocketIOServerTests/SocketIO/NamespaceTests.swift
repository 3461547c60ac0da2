import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import Testing

@Suite("Namespaces and sockets, on the wire")
struct NamespaceTests {
    @Test("the CONNECT reply comes before anything the connection handler emits")
    func replyFirst() async throws {
        try await DemoServer.with(setup: { server in
            server.namespace("/greeting").onConnection { socket in socket.emit("welcome", "hi") }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            let reply = try await client.connect("/greeting")
            #expect(reply["sid"] != nil)
            #expect(try await client.next("the welcome") == #"42/greeting,["welcome","hi"]"#)
            client.socket.drop()
        }
    }

    @Test("auth hook: accepted with the right token, refused with message and data otherwise")
    func auth() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            try client.send(#"40/chat,{"token":"nope"}"#)
            #expect(try await client.next() == #"44/chat,{"message":"unauthorized","data":{"reason":"bad token"}}"#)
            let reply = try await client.connect("/chat", auth: #"{"token":"secret"}"#)
            #expect(reply["sid"] != nil)
            try client.send(#"42/chat,["echo","in"]"#)
            #expect(try await client.next() == #"42/chat,["echo","in"]"#)
            client.socket.drop()
        }
    }

    @Test("one connection, several namespaces: each its own socket, packets routed by namespace")
    func multiplexing() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            let root = try await client.connect()
            let chat = try await client.connect("/chat", auth: #"{"token":"secret"}"#)
            #expect(root["sid"] != chat["sid"])
            try client.send(#"42/chat,["echo","c"]"#)
            try client.send(#"42["echo","r"]"#)
            #expect(try await client.next() == #"42/chat,["echo","c"]"#)
            #expect(try await client.next() == #"42["echo","r"]"#)
            // Leaving one namespace leaves the other connected.
            try client.send("41/chat,")
            try await demo.events.wait("the chat socket leaves") {
                if case .socketDisconnected("/chat", _, .clientNamespaceDisconnect) = $0 { return true }
                return false
            }
            try client.send(#"42["echo","still"]"#)
            #expect(try await client.next() == #"42["echo","still"]"#)
            client.socket.drop()
        }
    }

    @Test("server disconnect: 41 for the namespace; with close, the connection ends too")
    func serverDisconnect() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect()
            try client.send(#"42["kick"]"#)
            #expect(try await client.next() == "41")
            try await demo.events.wait("the socket leaves") {
                if case .socketDisconnected("/", _, .serverNamespaceDisconnect) = $0 { return true }
                return false
            }
            _ = try await client.connect("/chat", auth: #"{"token":"secret"}"#)
            try client.send(#"42/chat,["kick-close"]"#)
            #expect(try await client.next() == "41/chat,")
            #expect(try await client.next() == "1")
            try await client.socket.waitForClose()
            #expect(try await demo.events.closeReason(of: try #require(client.sid)) == "forced close")
        }
    }

    @Test("server emitWithAck: the client's ACK resolves it with its items")
    func serverAck() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect()
            try client.send(#"42["server-ack","question",1]"#)
            #expect(try await client.next() == #"420["server-ack","question",1]"#)
            try client.send(#"430["answer",{"n":2}]"#)
            #expect(try await client.next() == #"42["server-ack-result","answer",{"n":2}]"#)
            client.socket.drop()
        }
    }

    @Test("the app sees the handshake (query, headers, auth) and keeps data on the socket")
    func handshake() async throws {
        let seen = NIOLockedValueBox<SocketHandshake?>(nil)
        try await DemoServer.with(setup: { server in
            server.namespace("/inspect").onConnection { socket in
                seen.withLockedValue { $0 = socket.handshake }
                socket.data["greeted"] = true
                socket.emit("data", .object(socket.data))
            }
        }) { demo in
            let socket = try await RawWebSocket.open(
                port: demo.port, target: "/socket.io/?EIO=4&transport=websocket&room=blue%20one",
                headers: [("X-Client", "tests")]
            )
            _ = try await socket.nextText()
            let client = EngineWebSocket(socket: socket, handshake: nil)
            _ = try await client.connect("/inspect", auth: #"{"user":"ada"}"#)
            #expect(try await client.next() == #"42/inspect,["data",{"greeted":true}]"#)
            let handshake = try #require(seen.withLockedValue { $0 })
            #expect(handshake.query["room"] == "blue one")
            #expect(handshake.headers["x-client"] == "tests")
            #expect(handshake.auth?["user"] == "ada")
            #expect(handshake.address?.hasPrefix("127.0.0.1:") == true)
            socket.drop()
        }
    }

    /// A stream the app stops reading ends: its listener goes, and its disconnect handler with
    /// it (kept until the socket left, it held the stream, one per stream ever made).
    @Test("event streams dropped by the app leave no disconnect handler behind")
    func droppedEventStreamsForgetTheirDisconnectHandlers() async throws {
        try await DemoServer.with(setup: { server in
            server.namespace("/streams").onConnection { socket in
                socket.onDisconnect { _ in }  // the app's own
                for _ in 0 ..< 100 { _ = socket.events(named: "tick") }
                let kept = socket.state.withLockedValue { $0.disconnectHandlers.count }
                socket.emit("kept", .number(Double(kept)))
            }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect("/streams")
            let kept = try await client.next("how many disconnect handlers the socket keeps")
            #expect(kept == #"42/streams,["kept",1]"#)
            client.socket.drop()
        }
    }
}
