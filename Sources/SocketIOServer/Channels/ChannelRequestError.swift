public import SocketIOProtocol

/// Why a request the server made on a channel (``ReliableChannel/request(_:_:timeout:)``) got no
/// answer.
public enum ChannelRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No reply within the timeout (the client may be away longer than that, or not listening).
    case timedOut(event: String, after: Duration)
    /// The client answered that nobody will reply (`message` says why).
    case declined(String)
    /// The request could not be sent: the window is full or the channel is gone.
    case notSent(ReliableChannelError)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .timedOut(let event, let after): "no reply to \"\(event)\" within \(after)"
        case .declined(let message): "the client declined: \(message)"
        case .notSent(let error): "not sent: \(error)"
        }
    }
}
