/// Why a message is not a valid ``Envelope``.
///
/// Bad input from the network is this error, never a crash: a client that gets it treats the
/// connection as broken; the embedded server answers with an `error` envelope.
public enum EnvelopeError: Error, Sendable, Hashable {
    /// The text is not JSON.
    case invalidJSON(JSONError)
    /// The JSON is not an object (an envelope is always `{…}`).
    case notAnObject
    /// A member the envelope's type requires is absent.
    case missingField(String)
    /// A member holds the wrong kind of value; `expected` says what it must be.
    case invalidField(String, expected: String)
    /// The `type` member names no envelope type this version knows.
    case unknownType(String)
    /// A binary WebSocket message: envelopes travel in text messages.
    case binaryMessage
}

extension EnvelopeError: CustomStringConvertible {
    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .invalidJSON(let error): "malformed envelope: not JSON (\(error))"
        case .notAnObject: "malformed envelope: not a JSON object"
        case .missingField(let field): "malformed envelope: missing \"\(field)\""
        case .invalidField(let field, let expected): "malformed envelope: \"\(field)\" must be \(expected)"
        case .unknownType(let type): "malformed envelope: unknown type \"\(type)\""
        case .binaryMessage: "malformed envelope: a binary message (envelopes are JSON text)"
        }
    }
}
