import Foundation
package import NIOCore
package import NIOWebSocket

/// Turns the peer's WebSocket frames into messages by RFC 6455 (§5.1–5.5, §7.4, §8.1), for
/// both ends: joins fragments, holds messages to the size limit, checks the framing rules, and
/// says what the connection answers. The server's handler and the client's both perform the
/// actions it returns — one reading of the RFC, tested case by case.
///
/// The rules it enforces, and the status it closes with:
/// - masking: a client masks every frame, a server none (1002);
/// - reserved bits with no extension negotiated, unknown opcodes (1002);
/// - control frames: at most 125 bytes, never fragmented (1002);
/// - fragments: a continuation only inside a message, no new message before the last one's
///   final fragment (1002);
/// - text messages and close reasons are valid UTF-8, across fragments (1007);
/// - close statuses a peer may send (1002 for a 1-byte status, 1005/1006/1015, unassigned codes);
/// - the size limit over every fragment of a message (1009).
package struct WebSocketMessageAssembler: Sendable {
    /// Which end this is: what the peer's frames must look like.
    package enum Role: Sendable {
        /// The server: every frame from the client is masked.
        case server
        /// The client: no frame from the server is masked.
        case client
    }

    package enum Action: Equatable, Sendable {
        /// Nothing to do (a fragment kept, frames after the close).
        case none
        case deliver(WebSocketMessage)
        /// A ping: answer with a pong carrying `payload`.
        case pong(ByteBuffer)
        /// The peer's pong, with its payload.
        case pongReceived(ByteBuffer)
        /// The peer closed, with its status code when it gave one: answer and close.
        case peerClosed(code: UInt16?)
        /// The peer broke a rule: close with `code` (1002 protocol error, 1007 invalid payload,
        /// 1009 too big).
        case fail(code: UInt16, reason: String)
    }

    package static let protocolError: UInt16 = 1002
    package static let invalidPayload: UInt16 = 1007
    package static let messageTooBig: UInt16 = 1009

    /// The largest message accepted, in bytes (all its fragments together).
    package let maxSize: Int
    package let role: Role
    private var partial: (binary: Bool, bytes: ByteBuffer)?
    /// Set by a close frame or a broken rule: later frames are ignored.
    package private(set) var finished = false

    package init(maxSize: Int, role: Role) {
        self.maxSize = maxSize
        self.role = role
    }

    /// The frame limit to give NIO's frame decoder for messages of at most `maxSize` bytes: the
    /// same, but no more than the decoder can take (`UInt32.max`; more traps). A larger message
    /// still arrives in several frames, each checked here against `maxSize`.
    package static func decoderFrameLimit(forMessagesUpTo maxSize: Int) -> Int {
        min(maxSize, Int(UInt32.max))
    }

    package mutating func receive(_ frame: WebSocketFrame) -> Action {
        guard !finished else { return .none }
        switch role {
        case .server where frame.maskKey == nil: return fail(Self.protocolError, "an unmasked frame from the client")
        case .client where frame.maskKey != nil: return fail(Self.protocolError, "a masked frame from the server")
        case .server, .client: break
        }
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else { return fail(Self.protocolError, "reserved bits set (no extension was negotiated)") }
        var data = frame.unmaskedData
        switch frame.opcode {
        case .ping, .pong, .connectionClose:
            guard frame.fin, data.readableBytes <= 125 else { return fail(Self.protocolError, "a fragmented or long control frame") }
            switch frame.opcode {
            case .ping: return .pong(data)
            case .pong: return .pongReceived(data)
            default: return closeReceived(&data)
            }
        case .text, .binary:
            guard partial == nil else { return fail(Self.protocolError, "a new message before the last one's final fragment") }
            guard data.readableBytes <= maxSize else { return fail(Self.messageTooBig, "a message over \(maxSize) bytes") }
            let binary = frame.opcode == .binary
            if frame.fin { return complete(binary: binary, data) }
            partial = (binary, data)
            return .none
        case .continuation:
            guard case (let binary, var bytes)? = partial else { return fail(Self.protocolError, "a continuation frame outside a message") }
            partial = nil
            guard bytes.readableBytes + data.readableBytes <= maxSize else { return fail(Self.messageTooBig, "a message over \(maxSize) bytes") }
            bytes.writeBuffer(&data)
            if frame.fin { return complete(binary: binary, bytes) }
            partial = (binary, bytes)
            return .none
        default:
            return fail(Self.protocolError, "an unknown opcode")
        }
    }

    /// A close status an endpoint may put on the wire: 1000–1003, 1007–1014, 3000–4999.
    package static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// No status, or a 2-byte status a peer may send (§7.4) and a UTF-8 reason (§5.5.1):
    /// anything else (one byte, 1005/1006/1015, unassigned codes) is a protocol error.
    private mutating func closeReceived(_ data: inout ByteBuffer) -> Action {
        guard data.readableBytes != 1 else { return fail(Self.protocolError, "a close frame with a 1-byte status") }
        let code = data.readInteger(as: UInt16.self)
        if let code, !Self.isSendable(code) { return fail(Self.protocolError, "close status \(code) may not be sent") }
        guard String(validating: data.readableBytesView, as: UTF8.self) != nil else {
            return fail(Self.invalidPayload, "a close reason that is not UTF-8")
        }
        finished = true
        partial = nil
        return .peerClosed(code: code)
    }

    private mutating func complete(binary: Bool, _ bytes: ByteBuffer) -> Action {
        if binary { return .deliver(.binary(Data(bytes.readableBytesView))) }
        guard let text = String(validating: bytes.readableBytesView, as: UTF8.self) else {
            return fail(Self.invalidPayload, "a text message that is not UTF-8")
        }
        return .deliver(.text(text))
    }

    private mutating func fail(_ code: UInt16, _ reason: String) -> Action {
        finished = true
        partial = nil
        return .fail(code: code, reason: reason)
    }
}
