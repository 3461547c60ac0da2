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
