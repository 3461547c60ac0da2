public import SocketIOProtocol

/// Why a message was not dispatched: it is not a message at all. Rejections are counted
/// (``MessageCenterStatistics/rejected``) and logged; they never crash and never stop a feed.
public enum MessageRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not JSON.
    case invalidJSON(JSONError)
    /// The JSON is not an object (the associated value names what it is).
    case notAnObject(String)
    /// The object has no id at this path.
    case missingID(JSONKeyPath)
    /// The id at this path is not a string or a number (the associated value names what it is).
    case invalidID(JSONKeyPath, String)
    /// The object has no body at this path.
    case missingBody(JSONKeyPath)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .invalidJSON(let error):
            "message rejected: not JSON (\(error)); the sender must send a JSON object"
        case .notAnObject(let kind):
            "message rejected: got \(kind), expected a JSON object with an id and a body"
        case .missingID(let path):
            "message rejected: no id at \"\(path)\"; send one there or set MessageFormat.idPath"
        case .invalidID(let path, let kind):
            "message rejected: the id at \"\(path)\" is \(kind); ids must be strings or numbers"
        case .missingBody(let path):
            "message rejected: no body at \"\(path)\"; send one there or set MessageFormat.bodyPath"
        }
    }
}
