import Foundation
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The server's WebSocket end against every case of ``RFC6455Cases`` (Autobahn's groups 1–7),
/// over real sockets: a hand-written client sends the case's frames (masked) to the `/ws` echo.
@Suite("RFC 6455 cases: the server")
struct RFC6455ServerCaseTests {
    @Test(arguments: RFC6455Cases.all)
    func serverCase(_ testCase: RFC6455Cases.Case) async throws {
        try await DemoServer.with({ $0.maxPayload = 1 << 20 }, installingDemo: false) { demo in
            let socket = try await RawWebSocket.open(port: demo.port, target: "/ws")
            defer { socket.drop() }
            for frame in testCase.frames {
                try socket.send(opcode: frame.opcode, payload: frame.payload, fin: frame.fin, reserved: frame.reserved)
            }
            switch testCase.expected {
            case .echoes(let texts, let binaries, let pongs):
                var seen: (texts: [[UInt8]], binaries: [[UInt8]], pongs: [[UInt8]]) = ([], [], [])
                while seen.texts.count + seen.binaries.count + seen.pongs.count < texts.count + binaries.count + pongs.count {
                    let (opcode, payload) = try await withTimeout(10, "\(testCase): the echoes") { try await socket.nextFrame() }
                    switch opcode {
                    case 0x1: seen.texts.append(payload)
                    case 0x2: seen.binaries.append(payload)
                    case 0xA: seen.pongs.append(payload)
                    case 0x8:
                        Issue.record("\(testCase): closed (\(payload)) instead of echoing")
                        return
                    default: continue
                    }
                }
                #expect(seen.texts == texts, "\(testCase)")
                #expect(seen.binaries == binaries, "\(testCase)")
                #expect(seen.pongs == pongs, "\(testCase)")
            case .closeAnswered(let code):
                let payload = try await Self.closeFrame(socket, testCase)
                #expect(Self.status(payload) == code, "\(testCase): answered \(payload)")
                try await socket.waitForClose()
            case .failed(let codes):
                let payload = try await Self.closeFrame(socket, testCase)
                #expect(Self.status(payload).map(codes.contains) == true, "\(testCase): closed with \(payload)")
                try await socket.waitForClose()
            }
        }
    }

    /// The payload of the server's close frame (echoes before it are skipped).
    static func closeFrame(_ socket: RawWebSocket, _ testCase: RFC6455Cases.Case) async throws -> [UInt8] {
        while true {
            let (opcode, payload) = try await withTimeout(10, "\(testCase): the close frame") { try await socket.nextFrame() }
            if opcode == 0x8 { return payload }
        }
    }

    static func status(_ payload: [UInt8]) -> UInt16? {
        payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
    }
}
