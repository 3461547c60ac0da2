public import Foundation

extension EnginePacket {
    /// The packet as text, the form used in polling bodies and WebSocket text frames.
    ///
    /// Binary messages become `b` + base64 in v4 and `b4` + base64 in v3.
    public func encodedText(version: EngineIOVersion) -> String {
        switch self {
        case .open(let data): "0" + data
        case .close: "1"
        case .ping(let data): "2" + data
        case .pong(let data): "3" + data
        case .message(let data): "4" + data
        case .upgrade: "5"
        case .noop: "6"
        case .binaryMessage(let data):
            switch version {
            case .v4: "b" + data.base64EncodedString()
            case .v3: "b4" + data.base64EncodedString()
            }
        }
    }

    /// The packet as a binary WebSocket frame's bytes, for a binary message (v3 prefixes the raw
    /// type byte 0x04; v4 sends the bytes alone); `nil` for the others, which travel as text
    /// (``encodedText(version:)``).
    public func binaryFrame(version: EngineIOVersion) -> Data? {
        guard case .binaryMessage(let data) = self else { return nil }
        switch version {
        case .v4:
            return data
        case .v3:
            var framed = Data(capacity: data.count + 1)
            framed.append(4)
            framed.append(data)
            return framed
        }
    }

    /// Decodes one packet from its text form (a WebSocket text frame or one polling record).
    ///
    /// A text that starts with `b` is base64 binary in both versions (v3 then has a type digit).
    public static func decode(text: some StringProtocol, version: EngineIOVersion) throws(ProtocolError) -> EnginePacket {
        let utf8 = text.utf8
        guard let first = utf8.first else { throw .emptyPacket }
        let rest = text.utf8.index(after: utf8.startIndex)
        func data() -> String { String(text[rest...]) }
        switch first {
        case UInt8(ascii: "0"): return .open(data())
        case UInt8(ascii: "1"): return .close
        case UInt8(ascii: "2"): return .ping(data())
        case UInt8(ascii: "3"): return .pong(data())
        case UInt8(ascii: "4"): return .message(data())
        case UInt8(ascii: "5"): return .upgrade
        case UInt8(ascii: "6"): return .noop
        case UInt8(ascii: "b"):
            var base64 = text[rest...]
            if version == .v3 {
                guard base64.utf8.first == UInt8(ascii: "4") else { throw .invalidBase64 }
                base64 = base64.dropFirst()
            }
            guard let bytes = Data(base64Encoded: String(base64)) else { throw .invalidBase64 }
            return .binaryMessage(bytes)
        default:
            throw .unknownPacketType(String(text.prefix(1)))
        }
    }

    /// Decodes one binary WebSocket frame: a binary message (v3: after the 0x04 type byte).
    public static func decode(binaryFrame: Data, version: EngineIOVersion) throws(ProtocolError) -> EnginePacket {
        switch version {
        case .v4:
            return .binaryMessage(binaryFrame)
        case .v3:
            guard binaryFrame.first == 4 else { throw .invalidBinaryFrame }
            return .binaryMessage(Data(binaryFrame.dropFirst()))
        }
    }
}
