import NIOConcurrencyHelpers
public import SocketIOProtocol

/// An event from the server that asks for an answer (a Socket.IO event with an ack, an envelope
/// `request`), from ``Connection/requests(named:)``.
///
/// ```swift
/// for await request in connection.requests(named: "confirm") {
///     try request.reply(["accepted": true])
/// }
/// ```
public final class IncomingRequest: Sendable {
    /// The event's name.
    public let event: String
    /// What the server sent with it.
    public let payload: JSONValue
    private let driverReply: DriverReply
    private let isCurrent: @Sendable () -> Bool
    private let answered = NIOLockedValueBox(false)

    init(event: String, payload: JSONValue, reply: DriverReply, isCurrent: @escaping @Sendable () -> Bool) {
        self.event = event
        self.payload = payload
        self.driverReply = reply
        self.isCurrent = isCurrent
    }

    /// Sends the answer.
    ///
    /// - Throws: ``ConnectionError/alreadyReplied(event:)`` on a second call;
    ///   ``ConnectionError/replyTooLate(event:)`` when the connection that carried the request
    ///   is gone (the server sees its own timeout).
    public func reply(_ values: JSONValue...) throws(ConnectionError) {
        try reply(values: values)
    }

    /// Sends the answer (see ``reply(_:)``).
    public func reply(values: [JSONValue]) throws(ConnectionError) {
        let first = answered.withLockedValue { answered in
            defer { answered = true }
            return !answered
        }
        guard first else { throw .alreadyReplied(event: event) }
        guard isCurrent(), driverReply.send(values) else { throw .replyTooLate(event: event) }
    }

    /// Nobody listens for this request: tell the server where the protocol can.
    func decline() {
        let first = answered.withLockedValue { answered in
            defer { answered = true }
            return !answered
        }
        if first { driverReply.decline("no handler for \"\(event)\"") }
    }
}
