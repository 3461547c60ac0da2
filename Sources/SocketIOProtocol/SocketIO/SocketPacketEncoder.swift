public import Foundation

/// A Socket.IO packet ready for Engine.IO: one text message plus its binary attachments.
public struct EncodedSocketPacket: Sendable, Hashable {
    /// The text packet (without the Engine.IO `4` prefix).
    public var text: String
    /// The attachments, to be sent as binary messages right after ``text``, in order.
    public var attachments: [Data]

    public init(text: String, attachments: [Data] = []) {
        self.text = text
        self.attachments = attachments
    }

    /// The Engine.IO messages that carry this packet, in order.
    public var enginePackets: [EnginePacket] {
        [.message(text)] + attachments.map(EnginePacket.binaryMessage)
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
        var attachments: [Data] = []
        var json = ""
        let kind: SocketPacket.Kind
        switch packet.kind {
        case .event, .binaryEvent, .ack, .binaryAck:
            if let data = packet.data {
                json = data.jsonString(extractingAttachmentsInto: &attachments)
            }
            let isEvent = packet.kind == .event || packet.kind == .binaryEvent
            kind = attachments.isEmpty ? (isEvent ? .event : .ack) : (isEvent ? .binaryEvent : .binaryAck)
        case .connect, .disconnect, .connectError:
            // Only events and acks can carry attachments; binary elsewhere is written as base64.
            json = packet.data?.jsonString ?? ""
            kind = packet.kind
        }
        var text = String(kind.rawValue)
        if kind == .binaryEvent || kind == .binaryAck {
            text += "\(attachments.count)-"
        }
        if packet.namespace != "/" {
            text += packet.namespace + ","
        }
        if let id = packet.id {
            text += String(id)
        }
        text += json
        return EncodedSocketPacket(text: text, attachments: attachments)
    }
}
