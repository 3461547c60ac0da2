import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOWebSocket
@testable import SocketIOServer
import SwitchboardCore
import SocketIOProtocol
import Testing

/// The server's side of the closing handshake (RFC 6455 §7.1): after its close frame it waits
/// for the client's — then closes the connection at once, sending nothing more — and closes it
/// itself when no answer comes within ``WebSocketWriter/closeHandshakeLimit``. On an embedded
/// channel, with the loop's clock in the test's hands.
@Suite struct CloseHandshakeTests {
    final class Inbound: WebSocketInbound {
        let ends = NIOLockedValueBox<[EngineCloseReason]>([])
        func received(_ message: WebSocketMessage) {}
        func ended(_ reason: EngineCloseReason) { ends.withLockedValue { $0.append(reason) } }
    }

    static func connection() throws -> (EmbeddedChannel, WebSocketWriter, Inbound) {
        let channel = EmbeddedChannel()
        let writer = try WebSocketWriter.install(on: channel, limit: 1 << 20)
        let inbound = Inbound()
        try channel.pipeline.syncOperations.addHandler(ServerWebSocketHandler(maxMessageSize: 1000, inbound: inbound, writer: writer))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, writer, inbound)
    }

    /// Records how the pipeline is asked to close (NIO's embedded channel closes fully whatever
    /// the mode, so the mode is read here, at the head of the pipeline).
    final class CloseModes: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Any
        var modes: [CloseMode] = []
        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            modes.append(mode)
            if mode == .all { context.close(mode: mode, promise: promise) } else { promise?.succeed(()) }
        }
    }

    static func clientClose(_ code: UInt16) throws -> WebSocketFrame {
        let key = try #require(WebSocketMaskingKey([9, 8, 7, 6]))
        var data = ByteBuffer()
        data.writeInteger(code)
        data.webSocketMask(key)
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: key, data: data)
    }

    @Test func theServerWaitsForTheClientsCloseThenClosesWithoutAnsweringIt() throws {
        let (channel, writer, _) = try Self.connection()
        writer.close()
        channel.embeddedEventLoop.run()
        let sent = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(Array(sent.readableBytesView) == [0x88, 0x02, 0x03, 0xe8], "the server's close frame, 1000")
        #expect(channel.isActive, "the connection stays open for the client's answer")

        try channel.writeInbound(Self.clientClose(1000))
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive, "the client's close completes the handshake: the server closes at once")
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil, "no second close frame")
    }

    @Test func aClientThatNeverAnswersIsClosedAfterTheLimit() throws {
        let (channel, writer, _) = try Self.connection()
        writer.close()
        channel.embeddedEventLoop.run()
        _ = try channel.readOutbound(as: ByteBuffer.self)
        channel.embeddedEventLoop.advanceTime(by: WebSocketWriter.closeHandshakeLimit - .milliseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test func aClientsCloseIsAnsweredWithItsStatusWhenItClosesFirst() throws {
        let (channel, _, inbound) = try Self.connection()
        try channel.writeInbound(Self.clientClose(4000))
        channel.embeddedEventLoop.run()
        let answer = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(answer.opcode == .connectionClose)
        #expect(Array(answer.unmaskedData.readableBytesView) == [0x0f, 0xa0])
        #expect(!channel.isActive)
        #expect(inbound.ends.withLockedValue { $0 } == [.transportClose])
    }

    @Test func aClientBreakingTheProtocolGetsTheCloseFrameThenAFINAndWhatItStillSendsIsDropped() throws {
        let (channel, _, inbound) = try Self.connection()
        let modes = CloseModes()
        try channel.pipeline.syncOperations.addHandler(modes, position: .first)
        let key = try #require(WebSocketMaskingKey([1, 2, 3, 4]))
        // A fragmented ping (RFC 6455 §5.5: control frames are never fragmented), then more frames.
        try channel.writeInbound(WebSocketFrame(fin: false, opcode: .ping, maskKey: key, data: ByteBuffer()))
        channel.embeddedEventLoop.run()
        let sent = try #require(try channel.readOutbound(as: WebSocketFrame.self))
        #expect(sent.opcode == .connectionClose)
        #expect(Array(sent.unmaskedData.readableBytesView) == [0x03, 0xea], "1002, protocol error")
        #expect(modes.modes == [.output], "only the server's side is shut: unread client bytes would reset the connection and could discard the close frame")
        #expect(inbound.ends.withLockedValue { $0 }.count == 1)

        try channel.writeInbound(Self.clientClose(1000))
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: WebSocketFrame.self) == nil, "nothing answers what follows the failure")
        #expect(modes.modes == [.output])

        channel.embeddedEventLoop.advanceTime(by: WebSocketWriter.closeHandshakeLimit)
        #expect(modes.modes == [.output, .all], "the connection closes after the close handshake's bound")
        #expect(!channel.isActive)
        #expect(inbound.ends.withLockedValue { $0 }.count == 1, "ended once")
    }
}
