public import Foundation

extension Envelope {
    /// The compact JSON text, members in the order of the table in ``Envelope``'s documentation
    /// (`type` first, so a reader can dispatch early).
    public var text: String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64)
        write(to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends the compact JSON's UTF-8 bytes to `buffer`.
    public func write(to buffer: inout [UInt8]) {
        var attachments: [Data] = []
        JSONWriter.append(#"{"type":"#, to: &buffer)
        JSONWriter.writeString(type, to: &buffer)
        switch self {
        case .event(let name, let data, let seq):
            JSONWriter.append(#","event":"#, to: &buffer)
            JSONWriter.writeString(name, to: &buffer)
            JSONWriter.append(#","data":"#, to: &buffer)
            data.write(to: &buffer, binary: .base64Object, attachments: &attachments)
            if let seq { Self.writeMember("seq", seq, to: &buffer) }
        case .request(let name, let data, let id, let seq):
            JSONWriter.append(#","event":"#, to: &buffer)
            JSONWriter.writeString(name, to: &buffer)
            JSONWriter.append(#","data":"#, to: &buffer)
            data.write(to: &buffer, binary: .base64Object, attachments: &attachments)
            Self.writeMember("id", id, to: &buffer)
            if let seq { Self.writeMember("seq", seq, to: &buffer) }
        case .reply(let id, let data, let seq):
            Self.writeMember("id", id, to: &buffer)
            JSONWriter.append(#","data":"#, to: &buffer)
            JSONValue.array(data).write(to: &buffer, binary: .base64Object, attachments: &attachments)
            if let seq { Self.writeMember("seq", seq, to: &buffer) }
        case .error(let id, let message):
            if let id { Self.writeMember("id", id, to: &buffer) }
            JSONWriter.append(#","message":"#, to: &buffer)
            JSONWriter.writeString(message, to: &buffer)
        case .ack(let seq):
            Self.writeMember("seq", seq, to: &buffer)
        case .resume(let channel, let received), .resumed(let channel, let received):
            JSONWriter.append(#","channel":"#, to: &buffer)
            JSONWriter.writeString(channel, to: &buffer)
            Self.writeMember("received", received, to: &buffer)
        }
        buffer.append(JSONByte.closeBrace)
    }

    /// The envelope as a JSON value (to carry it inside another protocol, such as a Socket.IO
    /// event); ``init(json:)`` reads it back.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["type": .string(type)]
        switch self {
        case .event(let name, let data, let seq):
            object["event"] = .string(name)
            object["data"] = data
            if let seq { object["seq"] = .number(Double(seq)) }
        case .request(let name, let data, let id, let seq):
            object["event"] = .string(name)
            object["data"] = data
            object["id"] = .number(Double(id))
            if let seq { object["seq"] = .number(Double(seq)) }
        case .reply(let id, let data, let seq):
            object["id"] = .number(Double(id))
            object["data"] = .array(data)
            if let seq { object["seq"] = .number(Double(seq)) }
        case .error(let id, let message):
            if let id { object["id"] = .number(Double(id)) }
            object["message"] = .string(message)
        case .ack(let seq):
            object["seq"] = .number(Double(seq))
        case .resume(let channel, let received), .resumed(let channel, let received):
            object["channel"] = .string(channel)
            object["received"] = .number(Double(received))
        }
        return .object(object)
    }

    /// Writes `,"name":value`; a negative `id` (which only a caller's bug makes) is written as 0
    /// rather than as text the peer would reject.
    private static func writeMember(_ name: StaticString, _ value: some BinaryInteger, to buffer: inout [UInt8]) {
        buffer.append(JSONByte.comma)
        buffer.append(JSONByte.quote)
        JSONWriter.append(name, to: &buffer)
        buffer.append(JSONByte.quote)
        buffer.append(JSONByte.colon)
        JSONWriter.writeInteger(UInt64(clamping: value), to: &buffer)
    }
}

extension Envelope {
    /// Reads one envelope from JSON text.
    /// - Throws: ``EnvelopeError`` naming what is wrong; never crashes on bad input.
    public init(parsing text: String) throws(EnvelopeError) {
        try self.init(json: Self.parsed { () throws(JSONError) in try JSONValue(parsing: text) })
    }

    /// Reads one envelope from a WebSocket message's text; `nil` (a binary message) is
    /// ``EnvelopeError/binaryMessage``: envelopes are JSON text.
    public init(webSocketText text: String?) throws(EnvelopeError) {
        guard let text else { throw .binaryMessage }
        try self.init(parsing: text)
    }

    /// Reads one envelope from UTF-8 JSON bytes.
    public init(parsing data: Data) throws(EnvelopeError) {
        try self.init(json: Self.parsed { () throws(JSONError) in try JSONValue(parsing: data) })
    }

    /// The JSON `parse` reads; what is not JSON is ``EnvelopeError/invalidJSON(_:)``.
    private static func parsed(_ parse: () throws(JSONError) -> JSONValue) throws(EnvelopeError) -> JSONValue {
        do {
            return try parse()
        } catch {
            throw .invalidJSON(error)
        }
    }

    /// Reads one envelope from a JSON value (see ``jsonValue``).
    public init(json: JSONValue) throws(EnvelopeError) {
        guard case .object(let object) = json else { throw .notAnObject }
        let fields = Fields(object: object)
        let type = try fields.string("type")
        switch type {
        case "event":
            self = .event(name: try fields.eventName(), data: fields.data(), seq: try fields.optionalInteger("seq"))
        case "request":
            self = .request(
                name: try fields.eventName(), data: fields.data(), id: try fields.id(),
                seq: try fields.optionalInteger("seq"))
        case "reply":
            self = .reply(id: try fields.id(), data: try fields.replyData(), seq: try fields.optionalInteger("seq"))
        case "error":
            self = .error(id: try fields.optionalID(), message: try fields.string("message"))
        case "ack":
            self = .ack(seq: try fields.integer("seq"))
        case "resume":
            self = .resume(channel: try fields.channel(), received: try fields.integer("received"))
        case "resumed":
            self = .resumed(channel: try fields.channel(), received: try fields.integer("received"))
        default:
            throw .unknownType(type)
        }
    }
}

/// Typed reads of an envelope's members.
private struct Fields {
    let object: JSONObject

    func string(_ name: String) throws(EnvelopeError) -> String {
        guard let value = object[name] else { throw .missingField(name) }
        guard case .string(let string) = value else { throw .invalidField(name, expected: "a string") }
        return string
    }

    func eventName() throws(EnvelopeError) -> String {
        let name = try string("event")
        guard !name.isEmpty else { throw .invalidField("event", expected: "a non-empty string") }
        return name
    }

    /// A channel id: 1 to 128 characters (a client makes it; the server keys state by it).
    func channel() throws(EnvelopeError) -> String {
        let channel = try string("channel")
        guard (1...128).contains(channel.count) else {
            throw .invalidField("channel", expected: "a string of 1 to 128 characters")
        }
        return channel
    }

    func data() -> JSONValue {
        object["data"] ?? .null
    }

    func replyData() throws(EnvelopeError) -> [JSONValue] {
        guard let value = object["data"] else { return [] }
        guard case .array(let values) = value else { throw .invalidField("data", expected: "an array") }
        return values
    }

    func id() throws(EnvelopeError) -> Int {
        guard let id = try optionalID() else { throw .missingField("id") }
        return id
    }

    /// The `id` as an `Int`; on a 32-bit platform an id past `Int.max` is rejected, not trapped on.
    func optionalID() throws(EnvelopeError) -> Int? {
        guard let value = try optionalInteger("id") else { return nil }
        guard let id = Int(exactly: value) else { throw .invalidField("id", expected: "an integer from 0 to \(Int.max)") }
        return id
    }

    func integer(_ name: String) throws(EnvelopeError) -> UInt64 {
        guard let value = try optionalInteger(name) else { throw .missingField(name) }
        return value
    }

    func optionalInteger(_ name: String) throws(EnvelopeError) -> UInt64? {
        guard let value = object[name] else { return nil }
        guard case .number(let number) = value, let integer = UInt64(exactly: number),
              integer <= Envelope.maxInteger else {
            throw .invalidField(name, expected: "an integer from 0 to 2^53 - 1")
        }
        return integer
    }
}
