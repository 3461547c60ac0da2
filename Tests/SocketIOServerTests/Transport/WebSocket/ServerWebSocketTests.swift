import Foundation
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The server's WebSocket end over real sockets: RFC 6455's rules as a hand-driven client sees
/// them, and a flood that makes the server stop and resume reading.
@Suite("Server WebSocket connections")
struct ServerWebSocketTests {
    @Test("a ping gets a pong with its payload; a fragmented message, a ping between its fragments, comes back whole")
    func pingAndFragments() async throws {
        try await DemoServer.with(installingDemo: false) { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/ws")
            defer { socket.drop() }
            try socket.send(opcode: 0x9, payload: Array("are you there".utf8))
            let pong = try await withTimeout { try await socket.nextFrame() }
            #expect(pong.opcode == 0xA)
            #expect(pong.payload == Array("are you there".utf8))

            try socket.send(opcode: 0x1, payload: Array("hel".utf8), fin: false)
            try socket.send(opcode: 0x9, payload: [1])
            try socket.send(opcode: 0x0, payload: Array("lo wor".utf8), fin: false)
            try socket.send(opcode: 0x0, payload: Array("ld".utf8))
            #expect(try await withTimeout { try await socket.nextFrame() } == (0xA, [1]))
            #expect(try await socket.nextText() == "hello world")
        }
    }

    @Test("a message over maxPayload, even in fragments that are each under it, is closed with 1009")
    func tooBig() async throws {
        try await DemoServer.with({ $0.maxPayload = 1000 }, installingDemo: false) { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/ws")
            defer { socket.drop() }
            try socket.send(text: String(repeating: "a", count: 1000))
            #expect(try await socket.nextText().count == 1000, "a message at the limit passes")
            try socket.send(opcode: 0x2, payload: [UInt8](repeating: 1, count: 600), fin: false)
            try socket.send(opcode: 0x0, payload: [UInt8](repeating: 2, count: 600))
            #expect(try await withTimeout { try await socket.next() } == .close(1009))
            try await socket.waitForClose()
        }
    }

    @Test("broken framing is closed with 1002", arguments: ["a continuation first", "reserved bits", "an unmasked frame"])
    func protocolError(_ what: String) async throws {
        try await DemoServer.with(installingDemo: false) { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/ws")
            defer { socket.drop() }
            switch what {
            case "reserved bits": try socket.send(opcode: 0x1, payload: Array("x".utf8), reserved: 0x40)
            case "an unmasked frame": try socket.send(opcode: 0x1, payload: Array("x".utf8), masked: false)
            default: try socket.send(opcode: 0x0, payload: Array("x".utf8))
            }
            #expect(try await withTimeout { try await socket.next() } == .close(1002))
            try await socket.waitForClose()
        }
    }

    @Test("invalid UTF-8 in a text message, also across fragments, or in a close reason, is closed with 1007",
          arguments: ["whole", "fragments", "close reason"])
    func invalidUTF8(_ what: String) async throws {
        try await DemoServer.with(installingDemo: false) { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/ws")
            defer { socket.drop() }
            switch what {
            case "whole":
                try socket.send(opcode: 0x1, payload: [0xce, 0xba, 0xed, 0xa0, 0x80])
            case "fragments":
                try socket.send(opcode: 0x1, payload: [0xce, 0xba, 0xe1], fin: false)
                try socket.send(opcode: 0x0, payload: [0xbd, 0xc0, 0x80])
            default:
                try socket.send(opcode: 0x8, payload: [0x03, 0xe8, 0xed, 0xa0, 0x80])
            }
            #expect(try await withTimeout { try await socket.next() } == .close(1007))
            try await socket.waitForClose()
        }
    }

    @Test("the client's close is answered with its status code and the connection closes; the session ends as transport close")
    func clientClose() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            defer { client.socket.drop() }
            _ = try await client.connect()
            try client.socket.send(opcode: 0x8, payload: [0x0F, 0xA0])  // 4000
            #expect(try await withTimeout { try await client.socket.next() } == .close(4000))
            try await client.socket.waitForClose()
            try await demo.events.wait("the session closes") {
                if case .sessionClosed(client.sid ?? "?", "transport close") = $0 { return true }
                return false
            }
        }
    }

    @Test("600 events in one write come back once each, in order (more than may wait at once: reading stops and resumes)")
    func flood() async throws {
        try await DemoServer.with { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            defer { client.socket.drop() }
            _ = try await client.connect()
            // One write of 12 KB: the server reads it at once, more messages than
            // `InboundBacklog.pauseAt` at a time.
            var frames: [UInt8] = []
            for index in 0..<600 { frames += RawWebSocket.frame(opcode: 0x1, payload: Array(#"42["echo",\#(index)]"#.utf8)) }
            // A blocking write the server's backpressure holds up: on a thread of its own, not
            // on the concurrency pool that the server's work needs to make room.
            let connection = client.socket.connection
            let written = AsyncStream<Bool>.makeStream()
            Thread.detachNewThread { [frames] in
                written.continuation.yield((try? connection.write(frames)) != nil)
                written.continuation.finish()
            }
            // One deadline for all of them (a timer per echo would load the machine for nothing).
            let echoes = try await withTimeout(60, "600 echoes") {
                var echoes: [RawWebSocket.Message] = []
                for _ in 0..<600 { echoes.append(try await client.socket.next()) }
                return echoes
            }
            #expect(echoes == (0..<600).map { .text(#"42["echo",\#($0)]"#) })
            #expect(await written.stream.first { _ in true } == true)
        }
    }

    @Test("stop() returns once every WebSocket has closed, the close frame sent")
    func stopWaitsForWebSockets() async throws {
        let demo = try await DemoServer.start(installingDemo: false)
        let sockets = try await withThrowingTaskGroup(of: RawWebSocket.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    // An echo: the server's handlers are in place (the 101 can arrive first).
                    let socket = try await RawWebSocket.open(port: demo.port, target: "/ws")
                    try socket.send(text: "ready")
                    _ = try await socket.nextText()
                    return socket
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { for socket in sockets { socket.drop() } }
        #expect(demo.server.core.webSockets.count == 8)
        await demo.stop()
        #expect(demo.server.core.webSockets.count == 0)
        for socket in sockets {
            #expect(try await withTimeout { try await socket.next() } == .close(1000))
        }
    }
}
