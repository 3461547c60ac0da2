public import SocketIOProtocol

/// One message as subscribers see it: its id, its body, the whole JSON it came in, and whether
/// a subscriber before this one handled it.
///
/// ```swift
/// // {"msg_id":"00544","msg_body":{"type":"order_status_change","extra":{"order_no":"TAINIUBILE1234"}}}
/// message.id                                   // "00544"
/// message.body["type"]?.stringValue            // "order_status_change"
/// message["msg_body.extra.order_no"]           // .string("TAINIUBILE1234")
/// message.processed                            // true once an earlier subscriber returned .processed
/// ```
public struct Message: Sendable, Hashable {
    /// The id, found at ``MessageFormat/idPath``; duplicates are detected by it.
    public let id: MessageID
    /// The body, found at ``MessageFormat/bodyPath``.
    public let body: JSONValue
    /// The whole message as it arrived; key paths of conditions are resolved against it.
    public let json: JSONValue
    /// Whether an earlier subscriber of this dispatch marked the message handled (returned
    /// ``MessageDisposition/processed`` or ``MessageDisposition/intercept``).
    public internal(set) var processed: Bool

    /// Reads the id and body out of `json` as `format` says, or says why it cannot.
    ///
    /// A message is a JSON object with a string or number id and a body (any JSON value).
    public init(json: JSONValue, format: MessageFormat = MessageFormat()) throws(MessageRejection) {
        guard case .object = json else { throw .notAnObject(json.kindDescription) }
        guard let idValue = format.idPath.value(in: json) else { throw .missingID(format.idPath) }
        guard let id = MessageID(idValue) else { throw .invalidID(format.idPath, idValue.kindDescription) }
        guard let body = format.bodyPath.value(in: json) else { throw .missingBody(format.bodyPath) }
        self.id = id
        self.body = body
        self.json = json
        self.processed = false
    }

    /// The value at `keyPath` in the whole message, or `nil` when missing.
    public subscript(keyPath: JSONKeyPath) -> JSONValue? {
        keyPath.value(in: json)
    }

    /// The body decoded as `T` (for example a `Codable` struct of your own).
    public func decodeBody<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(T.self, from: body)
    }
}

/// A message's id: a string or a number, JSON-typed (`"1"` and `1` are different ids).
public enum MessageID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral
{
    case string(String)
    case number(Double)

    /// The id in `value`, if it is a string or a number.
    public init?(_ value: JSONValue) {
        switch value {
        case .string(let string): self = .string(string)
        case .number(let number): self = .number(number)
        case .null, .bool, .array, .object, .binary: return nil
        }
    }

    /// The value of a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// The value of a integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }

    /// The id as JSON.
    public var jsonValue: JSONValue {
        switch self {
        case .string(let string): .string(string)
        case .number(let number): .number(number)
        }
    }

    /// A one-line description, for logs.
    public var description: String { jsonValue.jsonString }
}

/// Where a message keeps its id and its body. The default is socket.io-era backends' common
/// `{"msg_id": …, "msg_body": {…}}`.
public struct MessageFormat: Hashable, Sendable {
    /// The path of the id (a string or a number). Default `msg_id`.
    public var idPath: JSONKeyPath
    /// The path of the body. Default `msg_body`.
    public var bodyPath: JSONKeyPath

    /// A format with these paths.
    public init(idPath: JSONKeyPath = "msg_id", bodyPath: JSONKeyPath = "msg_body") {
        self.idPath = idPath
        self.bodyPath = bodyPath
    }
}
