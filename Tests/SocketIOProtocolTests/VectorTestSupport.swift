import Foundation
import Testing
import SocketIOProtocol

// Helpers shared by the tables of /work/shared/reference/vectors.md (the *VectorTests files,
// RejectionVectorTests, TranscriptTests and HandshakeTests).

/// Expects two strings to be the same bytes, not merely canonically equal as `String` compares.
func expectSameBytes(_ actual: String, _ expected: String, _ row: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        actual.utf8.elementsEqual(expected.utf8),
        "\(row): got \(Array(actual.utf8)) \"\(actual)\", expected \(Array(expected.utf8)) \"\(expected)\"",
        sourceLocation: sourceLocation
    )
}

/// A WebSocket frame's content as the vector tables write it: text, or binary bytes. (The codecs
/// know no WebSocket type: the one `WebSocketMessage` lives in the shared runtime above them.)
enum Frame: Sendable, Hashable {
    case text(String)
    case binary(Data)
}

extension EnginePacket {
    /// The packet as the one WebSocket frame Engine.IO sends it in.
    func frame(version: EngineIOVersion) -> Frame {
        binaryFrame(version: version).map(Frame.binary) ?? .text(encodedText(version: version))
    }

    /// Decodes one WebSocket frame.
    static func decode(_ frame: Frame, version: EngineIOVersion) throws(ProtocolError) -> EnginePacket {
        switch frame {
        case .text(let text): try decode(text: text, version: version)
        case .binary(let data): try decode(binaryFrame: data, version: version)
        }
    }
}

extension Envelope {
    /// Reads one envelope from a WebSocket frame.
    init(_ frame: Frame) throws(EnvelopeError) {
        switch frame {
        case .text(let text): try self.init(webSocketText: text)
        case .binary: try self.init(webSocketText: nil)
        }
    }
}

/// Expects two WebSocket messages to be the same kind of frame with the same bytes.
func expectSameBytes(_ actual: Frame, _ expected: Frame, _ row: String, sourceLocation: SourceLocation = #_sourceLocation) {
    switch (actual, expected) {
    case (.text(let actual), .text(let expected)):
        expectSameBytes(actual, expected, row, sourceLocation: sourceLocation)
    case (.binary(let actual), .binary(let expected)):
        #expect(actual == expected, "\(row): binary frame", sourceLocation: sourceLocation)
    default:
        Issue.record("\(row): got \(actual), expected \(expected)", sourceLocation: sourceLocation)
    }
}

extension ProtocolError {
    /// Whether this is the same error as `expected`, ignoring the free-text reason carried by
    /// `invalidPayload`, `invalidHandshake` and `invalidSocketPayload` (tables give `""` there).
    func matches(_ expected: ProtocolError) -> Bool {
        switch (self, expected) {
        case (.invalidPayload, .invalidPayload), (.invalidHandshake, .invalidHandshake),
             (.invalidSocketPayload, .invalidSocketPayload):
            true
        default:
            self == expected
        }
    }
}

/// Feeds one Socket.IO packet (its text message, then each attachment) to `decoder`.
///
/// Every part but the last must give `nil` (the decoder waits for attachments); the last one's
/// result is returned.
func decodeSocketPacket(
    text: String,
    attachments: [Data],
    with decoder: inout SocketPacketDecoder,
    row: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws(ProtocolError) -> SocketPacket? {
    var result = try decoder.decode(text: text)
    for attachment in attachments {
        #expect(result == nil, "\(row): a packet came back before its last attachment", sourceLocation: sourceLocation)
        result = try decoder.decode(binary: attachment)
    }
    return result
}

/// What one Engine.IO message carries once decoded: an Engine.IO control packet, or (for
/// `message`s) the Socket.IO packet it completes.
enum WireItem: Sendable, Hashable, CustomStringConvertible {
    case engine(EnginePacket)
    case socket(SocketPacket)

    var description: String {
        switch self {
        case .engine(let packet): "engine \(packet)"
        case .socket(let packet): "socket \(packet)"
        }
    }

    /// The Engine.IO packets that carry these items, as a sender writes them.
    static func enginePackets(for items: [WireItem]) -> [EnginePacket] {
        items.flatMap { item -> [EnginePacket] in
            switch item {
            case .engine(let packet): [packet]
            case .socket(let packet): SocketPacketEncoder.encode(packet).enginePackets
            }
        }
    }

    /// Decodes Engine.IO packets as a receiver does: `message`s go through `decoder`, control
    /// packets are reported as they are.
    static func decode(_ packets: [EnginePacket], with decoder: inout SocketPacketDecoder) throws(ProtocolError) -> [WireItem] {
        var items: [WireItem] = []
        for packet in packets {
            switch packet {
            case .message(let text):
                if let socket = try decoder.decode(text: text) { items.append(.socket(socket)) }
            case .binaryMessage(let data):
                if let socket = try decoder.decode(binary: data) { items.append(.socket(socket)) }
            case .open, .close, .ping, .pong, .upgrade, .noop:
                items.append(.engine(packet))
            }
        }
        return items
    }
}

extension SocketPacket {
    /// The packet as the decoder reports it: BINARY_EVENT/BINARY_ACK become EVENT/ACK.
    var asDecoded: SocketPacket {
        var packet = self
        switch packet.kind {
        case .binaryEvent: packet.kind = .event
        case .binaryAck: packet.kind = .ack
        case .connect, .disconnect, .event, .ack, .connectError: break
        }
        return packet
    }
}
