import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
@testable import SocketIO
import SwitchboardCore
import SwitchboardTestSupport
import Testing
import WebSocketClient

/// The client's WebSocket end against every case of ``RFC6455Cases`` (Autobahn's groups 1–7),
/// over real sockets: a server sends the case's frames (unmasked), and the client must deliver
/// the messages, answer the pings and the close, or fail the connection with the right status.
@Suite("RFC 6455 cases: the client")
struct RFC6455ClientCaseTests {
    @Test(arguments: RFC6455Cases.all)
    func clientCase(_ testCase: RFC6455Cases.Case) async throws {
        let frames = testCase.frames.map { frame in
            WebSocketFrame(
                fin: frame.fin, rsv1: frame.reserved & 0x40 != 0, rsv2: frame.reserved & 0x20 != 0, rsv3: frame.reserved & 0x10 != 0,
                opcode: WebSocketOpcode(encodedWebSocketOpcode: frame.opcode)!, data: ByteBuffer(bytes: frame.payload)
            )
        }
        let server = try await MisbehavingWebSocketServer.start(sending: frames)
        let (events, received) = AsyncStream<WebSocketClientChannel.Event>.makeStream()
        let channel = WebSocketClientChannel(configuration: .init(
            address: ServerAddress(secure: false, host: "127.0.0.1", port: server.port), target: "/", maxMessageSize: 1 << 20
        )) { received.yield($0) }
        channel.connect()
        defer { channel.abort() }

        switch testCase.expected {
        case .echoes(let texts, let binaries, let pongs):
            var seen: (texts: [[UInt8]], binaries: [[UInt8]]) = ([], [])
            if texts.count + binaries.count > 0 {
                for await event in events {
                    switch event {
                    case .message(.text(let text)): seen.texts.append(Array(text.utf8))
                    case .message(.binary(let data)): seen.binaries.append(Array(data))
                    case .ended(let end):
                        Issue.record("\(testCase): ended (\(end)) instead of delivering")
                    case .opened: continue
                    }
                    if seen.texts.count + seen.binaries.count == texts.count + binaries.count { break }
                }
            }
            #expect(seen.texts == texts, "\(testCase)")
            #expect(seen.binaries == binaries, "\(testCase)")
            if !pongs.isEmpty {
                let answered = try await server.received.first(pongs.count, within: 10, "\(testCase): the pongs")
                #expect(answered.map(\.opcode) == Array(repeating: .pong, count: pongs.count), "\(testCase)")
                #expect(answered.map(\.payload) == pongs, "\(testCase)")
            }
        case .closeAnswered(let code):
            let close = try await Self.closeFrame(server, testCase)
            #expect(Self.status(close) == code, "\(testCase): answered \(close)")
            let end = try await events.firstMatch(within: 10, "\(testCase): the end") { if case .ended = $0 { true } else { false } }
            guard case .ended(.closed(let seen))? = end, seen == code else {
                Issue.record("\(testCase): ended \(String(describing: end))")
                return
            }
        case .failed(let codes):
            let close = try await Self.closeFrame(server, testCase)
            #expect(Self.status(close).map(codes.contains) == true, "\(testCase): closed with \(close)")
            let end = try await events.firstMatch(within: 10, "\(testCase): the end") { if case .ended = $0 { true } else { false } }
            guard case .ended(.failed)? = end else {
                Issue.record("\(testCase): ended \(String(describing: end))")
                return
            }
        }
        await server.stop()
    }

    /// The payload of the client's close frame (its pongs before it are skipped).
    static func closeFrame(_ server: MisbehavingWebSocketServer, _ testCase: RFC6455Cases.Case) async throws -> [UInt8] {
        let close = try await server.received.firstMatch(within: 10, "\(testCase): the client's close") { $0.opcode == .connectionClose }
        return try #require(close).payload
    }

    static func status(_ payload: [UInt8]) -> UInt16? {
        payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
    }
}
