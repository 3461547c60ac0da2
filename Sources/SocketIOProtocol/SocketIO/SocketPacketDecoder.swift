public import Foundation

/// Decodes Socket.IO packets from Engine.IO messages, reassembling binary packets.
///
/// Feed every text and binary `message` of one connection in order. A BINARY_EVENT or
/// BINARY_ACK header is held until its attachments have arrived; then the packet is returned
/// with the bytes back in place of the placeholders. Validation follows socket.io's JS decoder
/// (payload shapes per type, reserved event names in v5, at most ``maxAttachments``), and is
/// stricter where the protocol is: an EVENT must have a payload. After any error the decoder
/// is reset, as it must be whenever the transport closes (``reset()``).
///
/// ```swift
/// var decoder = SocketPacketDecoder(version: .v5)
/// if let packet = try decoder.decode(text: #"2["chat","hi"]"#) { ... }
/// ```
public struct SocketPacketDecoder: Sendable {
    /// The protocol revision, which decides how strictly payloads are checked.
    public let version: SocketIOVersion
    /// The largest attachment count accepted (socket.io's default is 10).
    public let maxAttachments: Int

    private var pending: (packet: SocketPacket, expected: Int, buffers: [Data])?

    /// A decoder for protocol `version`, refusing packets with more than `maxAttachments` binary attachments.
    public init(version: SocketIOVersion, maxAttachments: Int = 10) {
        self.version = version
        self.maxAttachments = maxAttachments
    }

    /// Whether a binary packet is waiting for attachments.
    public var isReconstructing: Bool { pending != nil }

    /// Drops any half-received binary packet.
    public mutating func reset() { pending = nil }

    /// Decodes a text message. Returns `nil` when it is a binary header still waiting for
    /// attachments.
    public mutating func decode(text: some StringProtocol) throws(ProtocolError) -> SocketPacket? {
        guard pending == nil else {
            pending = nil
            throw .unexpectedText
        }
        var packet: SocketPacket
        let attachments: Int
        do {
            (packet, attachments) = try Self.parse(text, version: version, maxAttachments: maxAttachments)
        }
        if (packet.kind == .binaryEvent || packet.kind == .binaryAck) && attachments > 0 {
            var buffers: [Data] = []
            buffers.reserveCapacity(attachments)  // at most `maxAttachments`, checked by `parse`
            pending = (packet, attachments, buffers)
            return nil
        }
        if packet.kind == .binaryEvent || packet.kind == .binaryAck {
            packet.data = try packet.data.map { value throws(ProtocolError) in try Self.reconstruct(value, with: []) }
            packet.kind = packet.kind == .binaryEvent ? .event : .ack
        }
        return packet
    }

    /// Decodes a binary message: the next attachment of the pending binary packet.
    public mutating func decode(binary: Data) throws(ProtocolError) -> SocketPacket? {
        guard var current = pending else { throw .unexpectedBinary }
        pending = nil  // so the append below does not copy the buffers `pending` still shares
        current.buffers.append(binary)
        guard current.buffers.count == current.expected else {
            pending = current
            return nil
        }
        var packet = current.packet
        if let data = packet.data {
            packet.data = try Self.reconstruct(data, with: current.buffers)
        }
        packet.kind = packet.kind == .binaryEvent ? .event : .ack
        return packet
    }

    /// Replaces every `{"_placeholder":true,"num":N}` with attachment N.
    static func reconstruct(_ value: JSONValue, with buffers: [Data]) throws(ProtocolError) -> JSONValue {
        switch value {
        case .array(let elements):
            var rebuilt: [JSONValue] = []
            rebuilt.reserveCapacity(elements.count)
            for element in elements { rebuilt.append(try reconstruct(element, with: buffers)) }
            return .array(rebuilt)
        case .object(let object):
            if object["_placeholder"] == .bool(true) {
                guard let num = object["num"]?.intValue, buffers.indices.contains(num) else {
                    throw .illegalAttachments
                }
                return .binary(buffers[num])
            }
            return .object(try object.mapValues { member throws(ProtocolError) in
                try reconstruct(member, with: buffers)
            })
        case .null, .bool, .number, .string, .binary:
            return value
        }
    }
}
