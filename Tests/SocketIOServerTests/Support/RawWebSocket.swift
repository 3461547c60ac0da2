import SwitchboardTestSupport
import Foundation
import SocketIOProtocol

/// A hand-driven WebSocket client over ``RawConnection`` (RFC 6455: masked client frames).
final class RawWebSocket: Sendable {
    enum Message: Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case binary([UInt8])
        case close(UInt16?)

        var description: String {
            switch self {
            case .text(let text): "text(\(text))"
            case .binary(let bytes): "binary(\(bytes))"
            case .close(let code): "close(\(code.map(String.init) ?? "-"))"
            }
        }
    }

    let connection: RawConnection

    private init(connection: RawConnection) {
        self.connection = connection
    }

    /// Opens a WebSocket to `target`; returns the socket, or the HTTP reply when the server
    /// refused the upgrade.
    static func connect(port: Int, target: String, headers: [(String, String)] = []) async throws -> Result<RawWebSocket, UnexpectedReply> {
        let connection = try RawConnection.connect(port: port)
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        try connection.write(request)
        let reply = try await HTTPClient.readReply(from: connection)
        guard reply.status == 101 else {
            connection.close()
            return .failure(UnexpectedReply(reply: reply))
        }
        return .success(RawWebSocket(connection: connection))
    }

    /// Opens a WebSocket that must be accepted.
    static func open(port: Int, target: String, headers: [(String, String)] = []) async throws -> RawWebSocket {
        try await connect(port: port, target: target, headers: headers).get()
    }

    func send(text: String) throws {
        try send(opcode: 0x1, payload: Array(text.utf8))
    }

    func send(binary: [UInt8]) throws {
        try send(opcode: 0x2, payload: binary)
    }

    /// Sends a close frame (normal closure).
    func sendClose() throws {
        try send(opcode: 0x8, payload: [0x03, 0xE8])
    }

    /// Sends one frame; `fin: false` for a fragment, `reserved` for the RSV bits (0x70),
    /// `masked: false` for a frame no client may send.
    func send(opcode: UInt8, payload: [UInt8], fin: Bool = true, reserved: UInt8 = 0, masked: Bool = true) throws {
        try connection.write(Self.frame(opcode: opcode, payload: payload, fin: fin, reserved: reserved, masked: masked))
    }

    /// A client frame's bytes (masked unless told otherwise).
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true, reserved: UInt8 = 0, masked: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | reserved | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126:
            frame.append(maskBit | UInt8(payload.count))
        case ..<65536:
            frame.append(maskBit | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        guard masked else { return frame + payload }
        let mask: [UInt8] = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        for (index, byte) in payload.enumerated() { frame.append(byte ^ mask[index % 4]) }
        return frame
    }

    /// The next data or close message (pings and pongs are skipped).
    func next() async throws -> Message {
        while true {
            let (opcode, payload) = try await nextFrame()
            switch opcode {
            case 0x1: return .text(String(decoding: payload, as: UTF8.self))
            case 0x2: return .binary(payload)
            case 0x8: return .close(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
            default: continue
            }
        }
    }

    /// The next frame, whatever it is: its opcode and payload.
    func nextFrame() async throws -> (opcode: UInt8, payload: [UInt8]) {
        try await connection.read { bytes -> ((UInt8, [UInt8]), consumed: Int)? in
            guard bytes.count >= 2 else { return nil }
            let opcode = bytes[0] & 0x0F
            var length = Int(bytes[1] & 0x7F)
            var offset = 2
            if length == 126 {
                guard bytes.count >= 4 else { return nil }
                length = Int(bytes[2]) << 8 | Int(bytes[3])
                offset = 4
            } else if length == 127 {
                guard bytes.count >= 10 else { return nil }
                length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            guard bytes.count >= offset + length else { return nil }
            return ((opcode, Array(bytes[offset..<(offset + length)])), offset + length)
        }
    }

    /// The next text message; anything else fails.
    func nextText(_ what: String = "a text frame") async throws -> String {
        let message = try await withTimeout(10, what) { try await self.next() }
        guard case .text(let text) = message else { throw UnexpectedMessage(expected: what, got: message) }
        return text
    }

    /// Waits for the server to close: a close frame or the end of the connection.
    func waitForClose() async throws {
        try await withTimeout(10, "the server closes the WebSocket") {
            while true {
                do {
                    if case .close = try await self.next() { return }
                } catch is RawConnection.Closed {
                    return
                }
            }
        }
    }

    /// Drops the TCP connection without a close frame.
    func drop() {
        connection.close()
    }
}

struct UnexpectedMessage: Error, CustomStringConvertible {
    let expected: String
    let got: RawWebSocket.Message
    var description: String { "expected \(expected), got \(got)" }
}

/// An Engine.IO session over a raw WebSocket.
struct EngineWebSocket: Sendable {
    let socket: RawWebSocket
    /// The `open` packet's JSON (nil for an upgrade socket, which gets none).
    let handshake: JSONValue?

    var sid: String? { handshake?["sid"]?.stringValue }

    /// A WebSocket-only session: connects and reads the `open` frame.
    static func open(port: Int, query: String = "") async throws -> EngineWebSocket {
        let socket = try await RawWebSocket.open(port: port, target: "/socket.io/?EIO=4&transport=websocket\(query)")
        let open = try await socket.nextText("the open packet")
        guard open.hasPrefix("0"), let json = try? JSONValue(parsing: String(open.dropFirst())) else {
            throw UnexpectedMessage(expected: "0{…}", got: .text(open))
        }
        return EngineWebSocket(socket: socket, handshake: json)
    }

    func send(_ packet: String) throws { try socket.send(text: packet) }
    func next(_ what: String = "a packet") async throws -> String { try await socket.nextText(what) }

    /// Joins `namespace` and returns the CONNECT reply's JSON.
    func connect(_ namespace: String = "/", auth: String = "") async throws -> JSONValue {
        let prefix = namespace == "/" ? "40" : "40\(namespace),"
        try send(prefix + auth)
        var reply = try await next("the CONNECT reply")
        // A server with a short heartbeat may ping first: answer and keep waiting.
        while reply == "2" {
            try send("3")
            reply = try await next("the CONNECT reply")
        }
        guard reply.hasPrefix(prefix), let json = try? JSONValue(parsing: String(reply.dropFirst(prefix.count))) else {
            throw UnexpectedMessage(expected: "\(prefix){…}", got: .text(reply))
        }
        return json
    }
}
