import SwitchboardCore
import Foundation
import SocketIOServer
import SwitchboardTestSupport
import Testing

@Suite("Plain WebSocket endpoint")
struct PlainWebSocketTests {
    @Test("by default every message comes back")
    func echo() async throws {
        try await DemoServer.with(installingDemo: false) { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/ws")
            try socket.send(text: "hello")
            #expect(try await socket.nextText() == "hello")
            try socket.send(binary: [1, 2, 3])
            #expect(try await withTimeout { try await socket.next() } == .binary([1, 2, 3]))
            try socket.sendClose()
            try await socket.waitForClose()
            try await demo.events.wait("closed") {
                if case .plainWebSocketClosed = $0 { return true }
                return false
            }
        }
    }

    @Test("a handler receives text, sends text and closes; the path is configurable")
    func handler() async throws {
        try await DemoServer.with({ $0.plainWebSocketPath = "/plain" }, setup: { server in
            server.onPlainWebSocket { connection in
                connection.send("welcome \(connection.query["name"] ?? "?")")
                for try await message in connection.messages {
                    guard case .text(let text) = message else { continue }
                    if text == "bye" { return }
                    connection.send(text.uppercased())
                }
            }
        }) { demo in
            let refused = try await RawWebSocket.connect(port: demo.port, target: "/ws")
            #expect(throws: UnexpectedReply.self) { try refused.get() }
            let socket = try await RawWebSocket.open(port: demo.port, target: "/plain?name=ada")
            #expect(try await socket.nextText() == "welcome ada")
            try socket.send(text: "shout")
            #expect(try await socket.nextText() == "SHOUT")
            try socket.send(text: "bye")
            try await socket.waitForClose()
        }
    }
}

/// A plain WebSocket client that is gone without a word (it answers no ping, as a phone that
/// lost its network cannot) is closed after a heartbeat, like an Engine.IO session; before, the
/// endpoint had no heartbeat and such a connection stayed open for good.
@Suite("Plain WebSocket heartbeat", .timeLimit(.minutes(1)))
struct PlainWebSocketHeartbeatTests {
    @Test("a client that answers no ping is closed; one that answers them is not")
    func silentClientsAreClosed() async throws {
        try await DemoServer.with({
            // Wide enough for the answering task below to pong in time on a loaded machine.
            $0.pingInterval = .milliseconds(100)
            $0.pingTimeout = .seconds(3)
        }, installingDemo: false) { demo in
            let silent = try await RawWebSocket.open(port: demo.port, target: "/ws")
            let answering = try await RawWebSocket.open(port: demo.port, target: "/ws")
            let (texts, heard) = AsyncStream.makeStream(of: String.self)
            let pongs = Task {
                while let frame = try? await answering.nextFrame() {
                    if frame.opcode == 0x9 { try? answering.send(opcode: 0xA, payload: frame.payload) }
                    if frame.opcode == 0x1 { heard.yield(String(decoding: frame.payload, as: UTF8.self)) }
                }
                heard.finish()
            }
            #expect(try await silent.nextFrame().opcode == 0x9, "pinged once quiet")
            try await silent.waitForClose()
            try await demo.events.wait("the silent client closed") {
                if case .plainWebSocketClosed = $0 { return true }
                return false
            }
            try answering.send(text: "still here")
            #expect(try await texts.first(1, within: 10, "the echo") == ["still here"])
            try answering.sendClose()
            pongs.cancel()
        }
    }
}
