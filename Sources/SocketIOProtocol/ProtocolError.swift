/// Why bytes from the network could not be decoded as Engine.IO or Socket.IO.
///
/// Every decoder in this module throws this one error type. A client or server that gets it
/// closes the connection with the reason `parse error` (as socket.io's own peers do); nothing in
/// this module crashes on bad input.
public enum ProtocolError: Error, Sendable, Hashable {
    /// An Engine.IO packet with no bytes at all.
    case emptyPacket
    /// The first character is not a packet type of this layer (Engine.IO `0`–`6`, Socket.IO `0`–`6`).
    case unknownPacketType(String)
    /// A `b…` packet or binary record whose base64 text does not decode.
    case invalidBase64
    /// A binary WebSocket frame that is not a v3 `message` (first byte not 0x04), or empty.
    case invalidBinaryFrame
    /// A polling body that breaks the payload format (bad length prefix, truncated record, empty body).
    case invalidPayload(String)
    /// The `open` packet is not the handshake JSON the protocol requires.
    case invalidHandshake(String)
    /// A Socket.IO packet whose JSON is malformed or has the wrong shape for its type.
    case invalidSocketPayload(String)
    /// The attachment count of a binary packet is missing or not a number, or a placeholder is bad.
    case illegalAttachments
    /// More attachments announced than the decoder accepts.
    case tooManyAttachments(Int)
    /// A binary message arrived while no binary packet was waiting for attachments.
    case unexpectedBinary
    /// A text message arrived while a binary packet was still waiting for attachments.
    case unexpectedText
}

extension ProtocolError: CustomStringConvertible {
    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .emptyPacket: "parser error: empty packet"
        case .unknownPacketType(let type): "unknown packet type \(type)"
        case .invalidBase64: "parser error: invalid base64 binary packet"
        case .invalidBinaryFrame: "parser error: binary frame is not a message"
        case .invalidPayload(let why): "parser error: \(why)"
        case .invalidHandshake(let why): "invalid handshake: \(why)"
        case .invalidSocketPayload(let why): "invalid payload: \(why)"
        case .illegalAttachments: "illegal attachments"
        case .tooManyAttachments(let count): "too many attachments (\(count))"
        case .unexpectedBinary: "got binary data when not reconstructing a packet"
        case .unexpectedText: "got plaintext data when reconstructing a packet"
        }
    }
}
