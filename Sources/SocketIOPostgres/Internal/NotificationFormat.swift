import Foundation
import SocketIOProtocol
import SocketIOServer

/// `@socket.io/postgres-adapter`'s notifications, without I/O: which channel a namespace uses,
/// whether a message goes inline or through the attachment table, and reading a notification
/// back.
///
/// A message goes through the table when its JSON takes `payloadThreshold` UTF-8 bytes or more
/// (PostgreSQL refuses notifications of 8000 bytes), or when it is a broadcast, a broadcast
/// acknowledgement or a server-side event (or its answer) carrying binary, which JSON cannot
/// hold. The row holds the whole message in MessagePack; the notification then carries only
/// `{"uid":…,"type":…,"attachmentId":"<row id>"}`.
struct NotificationFormat: Sendable, Hashable {
    var channelPrefix: String
    var payloadThreshold: Int

    /// What publishing a message takes.
    enum Outgoing: Sendable, Hashable {
        /// `pg_notify` with this JSON.
        case notify(String)
        /// A row with these MessagePack bytes, then `pg_notify` with ``header(for:attachmentID:)``.
        case attachment(Data)
    }

    /// What a notification holds.
    enum Incoming: Sendable, Hashable {
        /// The message itself.
        case message(ClusterMessage)
        /// The id of the row holding the message.
        case attachment(id: String)
    }

    /// The channel of `namespace`: `"<prefix>#<namespace>"`.
    func channel(for namespace: String) -> String {
        "\(channelPrefix)#\(namespace)"
    }

    /// The channel of `namespace`, if PostgreSQL and postgres-nio can listen on it: an
    /// identifier is at most 63 bytes (PostgreSQL silently truncates a longer `LISTEN`), and
    /// postgres-nio writes `LISTEN "<channel>"` without escaping quotes.
    func listenableChannel(for namespace: String) throws(PostgresClusterTransportError) -> String {
        let channel = channel(for: namespace)
        guard channel.utf8.count <= 63, !channel.contains("\""), !channel.contains("\0") else {
            throw .unsupportedNamespace(namespace)
        }
        return channel
    }

    /// How `message` is published.
    func outgoing(_ message: ClusterMessage) -> Outgoing {
        let json = message.json
        if Self.binaryTypes.contains(message.type), json.containsBinary {
            return .attachment(MessagePackValue(json: json).encoded)
        }
        let text = json.jsonString
        if text.utf8.count >= payloadThreshold {
            return .attachment(MessagePackValue(json: json).encoded)
        }
        return .notify(text)
    }

    /// The notification announcing row `attachmentID`: the id as a JSON string, as node-postgres
    /// returns a `bigserial`.
    static func header(for message: ClusterMessage, attachmentID: String) -> String {
        var object = JSONObject()
        object["uid"] = .string(message.uid)
        object["type"] = .number(Double(message.type.rawValue))
        object["attachmentId"] = .string(attachmentID)
        return JSONValue.object(object).jsonString
    }

    /// Reads a notification's payload: an inline message, or the header of an attachment (whose
    /// id may be a string or a number).
    static func incoming(_ payload: String) throws(ClusterMessageError) -> Incoming {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: payload)
        } catch {
            throw .unreadable("not JSON (\(error))")
        }
        if case .object(let object) = json, let id = object["attachmentId"] {
            switch id {
            case .string(let text) where !text.isEmpty: return .attachment(id: text)
            case .number: if let number = id.intValue { return .attachment(id: String(number)) }
            case .null, .bool, .string, .array, .object, .binary: break
            }
            throw .wrongType("attachmentId")
        }
        return .message(try ClusterMessage(json: json))
    }

    /// Reads the message a row holds.
    static func message(fromAttachment bytes: some Collection<UInt8>) throws(ClusterMessageError) -> ClusterMessage {
        let json: JSONValue
        do {
            json = try JSONValue(messagePack: MessagePackValue(decoding: bytes))
        } catch {
            throw .unreadable("attachment is not a MessagePack message (\(error))")
        }
        return try ClusterMessage(json: json)
    }

    /// The types whose binary sends them through the table (socket.io's list).
    static let binaryTypes: Set<ClusterMessageType> = [.broadcast, .broadcastAck, .serverSideEmit, .serverSideEmitResponse]
}
