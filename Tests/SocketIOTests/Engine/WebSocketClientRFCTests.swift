import NIOCore
import NIOWebSocket
@testable import SocketIO
import SwitchboardTestSupport
import Testing
import WebSocketClient

/// The client's end of RFC 6455 over real sockets, against a server that breaks it on purpose:
/// the client closes with the status the rule names and reports why.
@Suite struct WebSocketClientRFCTests {
    /// Opens a client against a server sending `frames`; returns how the client's connection
    /// ended and the close status the client sent.
    static func run(_ frames: [WebSocketFrame]) async throws -> (end: WebSocketClientChannel.End, closeStatus: UInt16?) {
        let server = try await MisbehavingWebSocketServer.start(sending: frames)
        let (ends, ended) = AsyncStream<WebSocketClientChannel.End>.makeStream()
        let channel = WebSocketClientChannel(configuration: .init(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: server.port), target: "/", maxMessageSize: 1 << 20
        )) { event in
            if case .ended(let end) = event { ended.yield(end) }
        }
        channel.connect()
        let end = try #require(try await ends.first(1, within: 15, "the client's end").first)
        let close = try await server.received.firstMatch(within: 15, "the client's close frame") { $0.opcode == .connectionClose }
        await server.stop()
        let status = close.flatMap { $0.payload.count >= 2 ? UInt16($0.payload[0]) << 8 | UInt16($0.payload[1]) : nil }
        return (end, status)
    }

    @Test func aMaskedFrameFromTheServerIsAProtocolError() async throws {
        var data = ByteBuffer(string: "0{}")
        let key = try #require(WebSocketMaskingKey([1, 2, 3, 4]))
        data.webSocketMask(key)
        let (end, status) = try await Self.run([WebSocketFrame(fin: true, opcode: .text, maskKey: key, data: data)])
        #expect(status == 1002)
        guard case .failed(.protocolViolation(1002, _)) = end else {
            Issue.record("ended \(end)")
            return
        }
    }

    @Test func invalidUTF8AcrossFragmentsIsInvalidPayload() async throws {
        let (end, status) = try await Self.run([
            WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(bytes: [0xce, 0xba, 0xe1])),
            WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(bytes: [0xbd, 0xed, 0xa0, 0x80])),
        ])
        #expect(status == 1007)
        guard case .failed(.protocolViolation(1007, _)) = end else {
            Issue.record("ended \(end)")
            return
        }
    }

    @Test func aServersCloseIsAnsweredWithItsStatus() async throws {
        var payload = ByteBuffer()
        payload.writeInteger(UInt16(4001))
        let (end, status) = try await Self.run([WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)])
        #expect(status == 4001, "the close handshake is completed")
        #expect(end == .closed(code: 4001))
    }

    @Test func theClientsCloseWaitsForTheServersAnswer() async throws {
        let harness = try await EmbeddedHarness.start()
        let (events, received) = AsyncStream<WebSocketClientChannel.Event>.makeStream()
        var configuration = WebSocketClientChannel.Configuration(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: harness.port), target: "/ws", maxMessageSize: 1 << 20
        )
        // Long enough that a loaded machine's answer is never cut off: this checks the handshake, not its bound.
        configuration.closeHandshakeTimeout = .seconds(60)
        let channel = WebSocketClientChannel(configuration: configuration) { received.yield($0) }
        channel.connect()
        _ = try await events.firstMatch(within: 15, "opened") { if case .opened = $0 { true } else { false } }
        channel.close()
        let end = try await events.firstMatch(within: 15, "the end") { if case .ended = $0 { true } else { false } }
        // The server's answering close frame arrived before the connection closed.
        guard case .ended(.closed(code: 1000))? = end else {
            Issue.record("ended \(String(describing: end))")
            return
        }
        await harness.stop()
    }
}
