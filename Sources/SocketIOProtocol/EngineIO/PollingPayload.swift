public import Foundation

/// The body of an HTTP long-polling request or response: several Engine.IO packets in one text.
///
/// - v4 joins the packets' text forms with the record separator `\u{1e}`.
/// - v3 prefixes each packet with its length in UTF-16 code units and a colon (`6:4hello`).
/// - v3 also has a binary body format for clients that do not send `b64=1`
///   (``encodeBinaryV3(_:)`` / ``decodeBinaryV3(_:)``).
public enum PollingPayload {
    /// The v4 record separator.
    public static let recordSeparator: Character = "\u{1e}"
    private static let recordSeparatorByte = UInt8(0x1e)

    /// Encodes packets as one text body.
    public static func encode(_ packets: [EnginePacket], version: EngineIOVersion) -> String {
        switch version {
        case .v4:
            return packets.map { $0.encodedText(version: .v4) }.joined(separator: String(recordSeparator))
        case .v3:
            guard !packets.isEmpty else { return "0:" }
            var body = ""
            for packet in packets {
                let text = packet.encodedText(version: .v3)
                body += "\(text.utf16.count):" + text
            }
            return body
        }
    }

    /// Decodes a text body into packets; any malformed record makes the whole body an error.
    public static func decode(_ body: String, version: EngineIOVersion) throws(ProtocolError) -> [EnginePacket] {
        switch version {
        case .v4: try decodeV4(body)
        case .v3: try decodeV3(body)
        }
    }

    private static func decodeV4(_ body: String) throws(ProtocolError) -> [EnginePacket] {
        guard !body.isEmpty else { throw .invalidPayload("empty body") }
        // The separator is one ASCII byte that no other UTF-8 sequence contains, and a control
        // character, which never joins a grapheme: splitting the bytes splits the characters,
        // without walking the body character by character.
        var packets: [EnginePacket] = []
        let bytes = body.utf8
        var start = bytes.startIndex
        while let end = bytes[start...].firstIndex(of: recordSeparatorByte) {
            packets.append(try EnginePacket.decode(text: body[start..<end], version: .v4))
            start = bytes.index(after: end)
        }
        packets.append(try EnginePacket.decode(text: body[start...], version: .v4))
        return packets
    }

    private static func decodeV3(_ body: String) throws(ProtocolError) -> [EnginePacket] {
        guard !body.isEmpty else { throw .invalidPayload("empty body") }
        if body == "0:" { return [] }
        var packets: [EnginePacket] = []
        let scalars = body.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            // Length: decimal digits up to ':'.
            var length = 0
            var digits = 0
            while index < scalars.endIndex, scalars[index] != ":" {
                let value = scalars[index].value
                guard (48...57).contains(value), digits < 9 else { throw .invalidPayload("bad length prefix") }
                length = length * 10 + Int(value - 48)
                digits += 1
                index = scalars.index(after: index)
            }
            guard digits > 0, index < scalars.endIndex else { throw .invalidPayload("bad length prefix") }
            index = scalars.index(after: index)
            // Record: exactly `length` UTF-16 code units.
            let start = index
            var units = 0
            while units < length {
                guard index < scalars.endIndex else { throw .invalidPayload("record shorter than its length") }
                units += scalars[index].utf16.count
                index = scalars.index(after: index)
            }
            guard units == length, length > 0 else { throw .invalidPayload("record length splits a character") }
            packets.append(try EnginePacket.decode(text: body[start..<index], version: .v3))
        }
        return packets
    }

    /// Encodes packets in the v3 binary (XHR2) body format.
    ///
    /// Each record is `<0 text | 1 binary>`, the length as one byte per decimal digit, `0xFF`,
    /// then the bytes; text lengths count UTF-8 bytes, binary records start with the type byte.
    public static func encodeBinaryV3(_ packets: [EnginePacket]) -> Data {
        var body = Data()
        for packet in packets {
            let bytes: Data
            if case .binaryMessage(let data) = packet {
                body.append(1)
                bytes = Data([4]) + data
            } else {
                body.append(0)
                bytes = Data(packet.encodedText(version: .v3).utf8)
            }
            body.append(contentsOf: String(bytes.count).utf8.map { $0 - UInt8(ascii: "0") })
            body.append(0xFF)
            body.append(bytes)
        }
        return body
    }

    /// Decodes a v3 binary (XHR2) body.
    public static func decodeBinaryV3(_ body: Data) throws(ProtocolError) -> [EnginePacket] {
        guard !body.isEmpty else { throw .invalidPayload("empty body") }
        var packets: [EnginePacket] = []
        var index = body.startIndex
        while index < body.endIndex {
            let isBinary: Bool
            switch body[index] {
            case 0: isBinary = false
            case 1: isBinary = true
            default: throw .invalidPayload("bad binary record marker")
            }
            index += 1
            var length = 0
            var digits = 0
            while index < body.endIndex, body[index] != 0xFF {
                guard body[index] <= 9, digits < 9 else { throw .invalidPayload("bad binary record length") }
                length = length * 10 + Int(body[index])
                digits += 1
                index += 1
            }
            guard digits > 0, index < body.endIndex else { throw .invalidPayload("bad binary record length") }
            index += 1
            guard body.endIndex - index >= length else { throw .invalidPayload("record shorter than its length") }
            let record = body[index..<(index + length)]
            index += length
            if isBinary {
                packets.append(try EnginePacket.decode(binaryFrame: Data(record), version: .v3))
            } else {
                guard let text = String(data: record, encoding: .utf8) else { throw .invalidPayload("record is not UTF-8") }
                packets.append(try EnginePacket.decode(text: text, version: .v3))
            }
        }
        return packets
    }
}
