extension SocketPacketDecoder {
    /// Parses `<type>[<n>-][<nsp>,][<id>][<JSON>]` and checks the payload's shape.
    static func parse(
        _ text: some StringProtocol,
        version: SocketIOVersion,
        maxAttachments: Int
    ) throws(ProtocolError) -> (SocketPacket, attachments: Int) {
        let utf8 = text.utf8
        var index = utf8.startIndex
        guard index < utf8.endIndex else { throw .unknownPacketType("") }
        let typeByte = utf8[index]
        guard typeByte >= UInt8(ascii: "0"), typeByte <= UInt8(ascii: "6"),
              let kind = SocketPacket.Kind(rawValue: typeByte - UInt8(ascii: "0")) else {
            throw .unknownPacketType(String(text.prefix(1)))
        }
        index = utf8.index(after: index)

        var attachments = 0
        if kind == .binaryEvent || kind == .binaryAck {
            var digits = 0
            while index < utf8.endIndex, utf8[index] != UInt8(ascii: "-") {
                let byte = utf8[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 6 else { throw .illegalAttachments }
                attachments = attachments * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                index = utf8.index(after: index)
            }
            guard digits > 0, index < utf8.endIndex else { throw .illegalAttachments }
            guard attachments <= maxAttachments else { throw .tooManyAttachments(attachments) }
            index = utf8.index(after: index)
        }

        var namespace = "/"
        if index < utf8.endIndex, utf8[index] == UInt8(ascii: "/") {
            let start = index
            while index < utf8.endIndex, utf8[index] != UInt8(ascii: ",") {
                index = utf8.index(after: index)
            }
            namespace = String(text[start..<index])
            if index < utf8.endIndex { index = utf8.index(after: index) }
        }

        var id: Int?
        var idDigits = 0
        while index < utf8.endIndex, utf8[index] >= UInt8(ascii: "0"), utf8[index] <= UInt8(ascii: "9") {
            // 15 digits, or fewer where they would not fit in `Int` (32 bits: 10 digits can trap).
            let (tens, overflowed) = (id ?? 0).multipliedReportingOverflow(by: 10)
            guard idDigits < 15, !overflowed, tens <= Int.max - 9 else { throw .invalidSocketPayload("ack id too long") }
            id = tens + Int(utf8[index] - UInt8(ascii: "0"))
            idDigits += 1
            index = utf8.index(after: index)
        }

        var data: JSONValue?
        if index < utf8.endIndex {
            do {
                data = try JSONValue(parsing: Substring(text[index...]))
            } catch {
                throw .invalidSocketPayload("bad JSON: \(error)")
            }
        }
        let packet = SocketPacket(kind: kind, namespace: namespace, id: id, data: data)
        try validate(packet, version: version)
        return (packet, attachments)
    }

    /// The payload shapes socket.io's decoder accepts (`isPayloadValid`), per packet type.
    static func validate(_ packet: SocketPacket, version: SocketIOVersion) throws(ProtocolError) {
        switch packet.kind {
        case .connect:
            switch (packet.data, version) {
            case (nil, _), (.object?, _): return
            case (_?, .v4): return // the v3-era decoder accepted any CONNECT payload
            case (_?, .v5): throw .invalidSocketPayload("CONNECT payload must be an object")
            }
        case .disconnect:
            guard packet.data == nil else { throw .invalidSocketPayload("DISCONNECT carries no payload") }
        case .event, .binaryEvent:
            guard case .array(let items)? = packet.data, let name = items.first else {
                throw .invalidSocketPayload("EVENT payload must be a non-empty array")
            }
            switch name {
            case .string(let name):
                if version == .v5 && SocketPacket.reservedEventNames.contains(name) {
                    throw .invalidSocketPayload("\"\(name)\" is a reserved event name")
                }
            case .number:
                return
            case .null, .bool, .array, .object, .binary:
                throw .invalidSocketPayload("event name must be a string or a number")
            }
        case .ack, .binaryAck:
            guard case .array? = packet.data else { throw .invalidSocketPayload("ACK payload must be an array") }
        case .connectError:
            switch packet.data {
            case nil, .string?, .object?: return
            case .null?, .bool?, .number?, .array?, .binary?:
                throw .invalidSocketPayload("CONNECT_ERROR payload must be a string or an object")
            }
        }
    }
}
