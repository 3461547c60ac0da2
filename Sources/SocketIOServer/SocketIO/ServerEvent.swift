import NIOConcurrencyHelpers
public import SocketIOProtocol

/// An event a client sent, as ``ServerSocket/on(_:_:)`` handlers see it.
///
/// ```swift
/// socket.on("echo") { event in
///     socket.emit("echo", items: event.items)
///     event.ack?.respond(event.items)   // only when the client asked for an ack
/// }
/// ```
public struct ServerEvent: Sendable {
    /// The event name.
    public let name: String
    /// The arguments, with binary attachments back in place as `JSONValue.binary(_:)`.
    public let items: [JSONValue]
    /// Present when the client asked for an acknowledgement; answers it once.
    public let ack: ServerAckResponder?

    public init(name: String, items: [JSONValue], ack: ServerAckResponder? = nil) {
        self.name = name
        self.items = items
        self.ack = ack
    }
}

/// Answers one client event that asked for an acknowledgement. Only the first answer is sent.
public struct ServerAckResponder: Sendable {
    private let send: @Sendable ([JSONValue]) -> Void
    private let answered = NIOLockedValueBox(false)

    init(send: @escaping @Sendable ([JSONValue]) -> Void) {
        self.send = send
    }

    /// Sends the ack with these items; later calls do nothing and return `false`.
    @discardableResult
    public func callAsFunction(_ items: JSONValue...) -> Bool {
        respond(items)
    }

    /// Sends the ack with these items; later calls do nothing and return `false`.
    @discardableResult
    public func respond(_ items: [JSONValue]) -> Bool {
        let first = answered.withLockedValue { answered in
            defer { answered = true }
            return !answered
        }
        if first { send(items) }
        return first
    }
}

/// Identifies a handler added with ``ServerSocket/on(_:_:)``, for ``ServerSocket/off(_:)-(ServerListenerID)``.
public struct ServerListenerID: Sendable, Hashable {
    let value: Int
}
