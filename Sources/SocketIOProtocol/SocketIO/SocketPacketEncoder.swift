public import Foundation

/// A Socket.IO packet ready for Engine.IO: one text message plus its binary attachments.
public struct EncodedSocketPacket: Sendable, Hashable {
    /// The text packet (without the Engine.IO `4` prefix).
    public var text: String
    /// The attachments, to be sent as binary messages right after ``text``, in order.
    public var attachments: [Data]

    /// An encoded packet: its text, then its binary attachments in order.
    public init(text: String, attachments: [Data] = []) {
        self.text = text
        self.attachments = attachments
    }

    /// The Engine.IO messages that carry this packet, in order.
    public var enginePackets: [EnginePacket] {
        var packets: [EnginePacket] = []
        packets.reserveCapacity(1 + attachments.count)
        packets.append(.message(text))
        for attachment in attachments { packets.append(.binaryMessage(attachment)) }
        return packets
    }
}

/// Encodes Socket.IO packets exactly like socket.io's JS encoder.
///
/// `<type>[<attachments>-][<namespace>,][<id>][<JSON>]`: the namespace gets a trailing comma
/// whenever it is not `/`; EVENT and ACK packets with binary anywhere are promoted to
/// BINARY_EVENT and BINARY_ACK, and each binary value becomes `{"_placeholder":true,"num":N}`.
public enum SocketPacketEncoder {
    /// Encodes one packet. The same rules serve protocol v4 and v5.
    public static func encode(_ packet: SocketPacket) -> EncodedSocketPacket {
        // Header and JSON go into one buffer, reserved once, and become the text in one copy.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(maxHeaderByteCount(packet) + JSONWriter.initialCapacity)
        buffer.append(UInt8(ascii: "0") + packet.kind.rawValue)
        if packet.namespace != "/" {
            buffer.append(contentsOf: packet.namespace.utf8)
            buffer.append(JSONByte.comma)
        }
        if let id = packet.id {
            if id < 0 { buffer.append(JSONByte.minus) }
            JSONWriter.writeInteger(UInt64(id.magnitude), to: &buffer)
        }
        var attachments: [Data] = []
        switch packet.kind {
        case .event, .binaryEvent, .ack, .binaryAck:
            packet.data?.write(to: &buffer, binary: .placeholders, attachments: &attachments)
            let isEvent = packet.kind == .event || packet.kind == .binaryEvent
            let kind: SocketPacket.Kind =
                attachments.isEmpty ? (isEvent ? .event : .ack) : (isEvent ? .binaryEvent : .binaryAck)
            buffer[0] = UInt8(ascii: "0") + kind.rawValue
            if !attachments.isEmpty {
                // Only now is the count known; it goes right after the type digit.
                buffer.insert(contentsOf: "\(attachments.count)-".utf8, at: 1)
            }
        case .connect, .disconnect, .connectError:
            // Only events and acks can carry attachments; binary elsewhere is written as base64.
            packet.data?.write(to: &buffer, binary: .base64Object, attachments: &attachments)
        }
        return EncodedSocketPacket(text: String(decoding: buffer, as: UTF8.self), attachments: attachments)
    }

    /// The most bytes the header can take: type digit, attachment count and dash, namespace and
    /// comma, ack id.
    private static func maxHeaderByteCount(_ packet: SocketPacket) -> Int {
        1 + 8 + packet.namespace.utf8.count + 1 + 20
    }
}
