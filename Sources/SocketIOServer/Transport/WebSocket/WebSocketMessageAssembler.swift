import Foundation
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// Turns a client's WebSocket frames into messages (RFC 6455 §5.4–5.5): joins fragments, holds
/// messages to the size limit, checks the framing rules, and says what the connection answers.
///
/// A value type: ``ServerWebSocketHandler`` performs the actions it returns.
struct WebSocketMessageAssembler {
    enum Action: Equatable {
        /// Nothing to do (a fragment kept, a pong, frames after the close).
        case none
        case deliver(WebSocketMessage)
        /// A ping: answer with a pong carrying `payload`.
        case pong(ByteBuffer)
        /// The client closed, with its status code when it gave one: answer and close.
        case peerClosed(code: UInt16?)
        /// The client broke a rule: close with `code` (1002 protocol error, 1009 too big).
        case fail(code: UInt16, reason: String)
    }

    static let protocolError: UInt16 = 1002
    static let messageTooBig: UInt16 = 1009

    /// The largest message accepted, in bytes (all its fragments together).
    let maxSize: Int
    private var partial: (binary: Bool, bytes: ByteBuffer)?
    /// Set by a close frame or a broken rule: later frames are ignored.
    private(set) var finished = false

    init(maxSize: Int) {
        self.maxSize = maxSize
    }

    mutating func receive(_ frame: WebSocketFrame) -> Action {
        guard !finished else { return .none }
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else { return fail(Self.protocolError, "reserved bits set (no extension was negotiated)") }
        var data = frame.unmaskedData
        switch frame.opcode {
        case .ping, .pong, .connectionClose:
            guard frame.fin, data.readableBytes <= 125 else { return fail(Self.protocolError, "a fragmented or long control frame") }
            switch frame.opcode {
            case .ping: return .pong(data)
            case .pong: return .none
            default:
                // No status, or a 2-byte status a peer may send (RFC 6455 §7.4): anything else
                // (one byte, 1005/1006/1015, unassigned codes) is a protocol error.
                guard data.readableBytes != 1 else { return fail(Self.protocolError, "a close frame with a 1-byte status") }
                let code = data.readInteger(as: UInt16.self)
                if let code, !Self.isSendable(code) { return fail(Self.protocolError, "close status \(code) may not be sent") }
                finished = true
                partial = nil
                return .peerClosed(code: code)
            }
        case .text, .binary:
            guard partial == nil else { return fail(Self.protocolError, "a new message before the last one's final fragment") }
            guard data.readableBytes <= maxSize else { return fail(Self.messageTooBig, "a message over \(maxSize) bytes") }
            let binary = frame.opcode == .binary
            if frame.fin { return .deliver(Self.message(binary: binary, data)) }
            partial = (binary, data)
            return .none
        case .continuation:
            guard case (let binary, var bytes)? = partial else { return fail(Self.protocolError, "a continuation frame outside a message") }
            partial = nil
            guard bytes.readableBytes + data.readableBytes <= maxSize else { return fail(Self.messageTooBig, "a message over \(maxSize) bytes") }
            bytes.writeBuffer(&data)
            if frame.fin { return .deliver(Self.message(binary: binary, bytes)) }
            partial = (binary, bytes)
            return .none
        default:
            return fail(Self.protocolError, "an unknown opcode")
        }
    }

    /// A close status an endpoint may put on the wire: 1000–1003, 1007–1014, 3000–4999.
    static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    private mutating func fail(_ code: UInt16, _ reason: String) -> Action {
        finished = true
        partial = nil
        return .fail(code: code, reason: reason)
    }

    private static func message(binary: Bool, _ bytes: ByteBuffer) -> WebSocketMessage {
        binary ? .binary(Data(bytes.readableBytesView)) : .text(String(buffer: bytes))
    }
}
