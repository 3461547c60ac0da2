/// Everything that can go wrong with a ``Connection``, each case saying what happened and what to do.
public enum ConnectionError: Error, Sendable, Hashable {
    /// SPEC.md's state table does not allow this move; the state did not change.
    case illegalTransition(from: ConnectionState, to: ConnectionState)
    /// The current state does not allow this operation (for example `connect` while `connected`).
    case notAllowed(operation: ConnectionOperation, state: ConnectionState)
    /// The connection was released: every operation fails and queued commands were dropped with
    /// this error. Lease or build a new connection.
    case released
    /// Opening the transport failed, and why.
    case connectFailed(String)
    /// The transport closed while a request was waiting for its reply; the reply can no longer
    /// arrive. Sent requests are not resent (the server may have handled them).
    case connectionLost(String)
    /// A request got no reply within its timeout (counted from the call, queued time included).
    case timedOut(event: String, after: Duration)
    /// The offline queue already holds `limit` commands; the command was refused.
    case queueFull(limit: Int)
    /// The transport refused a send or request, and why.
    case driverFailed(String)
    /// The calling task was cancelled before the command finished.
    case cancelled
    /// The configuration cannot make a connection (for example a URL the technology cannot use).
    case invalidConfiguration(String)
    /// ``IncomingRequest/reply(_:)`` was called a second time for the same request: only the
    /// first answer is sent.
    case alreadyReplied(event: String)
    /// The connection that carried the request is gone (it dropped, or was disconnected), so the
    /// answer cannot reach the server; the server sees its own timeout.
    case replyTooLate(event: String)
}

extension ConnectionError: CustomStringConvertible {
    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .illegalTransition(let from, let to):
            "illegal transition from \(from) to \(to): the state stays \(from)"
        case .notAllowed(let operation, let state):
            "\(operation) is not allowed while the connection is \(state)"
        case .released:
            "the connection was released; lease or build a new one"
        case .connectFailed(let why):
            "connecting failed: \(why)"
        case .connectionLost(let why):
            "the connection was lost before the reply arrived (\(why)); the request was not resent"
        case .timedOut(let event, let after):
            "no reply to \"\(event)\" within \(after)"
        case .queueFull(let limit):
            "the offline queue is full (\(limit) commands); wait for the connection or raise the limit"
        case .driverFailed(let why):
            "the transport refused the command: \(why)"
        case .cancelled:
            "the calling task was cancelled"
        case .invalidConfiguration(let why):
            "invalid connection configuration: \(why)"
        case .alreadyReplied(let event):
            "the request \"\(event)\" was already answered; only the first answer is sent"
        case .replyTooLate(let event):
            "the connection that carried the request \"\(event)\" is gone; the answer was not sent"
        }
    }
}

/// The operations of a ``Connection`` a state may allow or refuse.
public enum ConnectionOperation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ``Connection/connect()``.
    case connect
    /// ``Connection/disconnect()``.
    case disconnect
    /// ``Connection/release()``.
    case release
    /// ``Connection/send(_:_:)``.
    case send
    /// ``Connection/request(_:_:timeout:)``.
    case request
    /// ``Connection/events(named:)``.
    case subscribe

    /// A one-line description, for logs.
    public var description: String { rawValue }
}
