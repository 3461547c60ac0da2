/// An event from the other side, as handlers and async sequences see it: on the client an event
/// the server sent, on the server (as `ServerEvent`) one a client sent.
///
/// ```swift
/// socket.on("echo") { event in
///     print(event.items)
///     event.ack?("got it")   // only when the sender asked for an ack
/// }
/// ```
public struct SocketEvent: Sendable {
    /// The event name.
    public let name: String
    /// The arguments, with binary attachments back in place as `JSONValue.binary(_:)`.
    public let items: [JSONValue]
    /// Present when the sender asked for an acknowledgement; answers it once.
    public let ack: AckResponder?

    /// An event named `name` with `items`, and its responder when the sender asked for an acknowledgement.
    public init(name: String, items: [JSONValue], ack: AckResponder? = nil) {
        self.name = name
        self.items = items
        self.ack = ack
    }
}

/// Answers one event that asked for an acknowledgement. Only the first answer is sent.
public struct AckResponder: Sendable {
    private let send: @Sendable ([JSONValue]) -> Bool

    /// A responder whose `send` sends the first answer and returns `true`, and returns `false`
    /// for every later one (the socket that made it keeps that once-only state).
    package init(send: @escaping @Sendable ([JSONValue]) -> Bool) {
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
        send(items)
    }
}

/// Identifies a listener added with `on`, `once` or `onAny` (client or server), for `off`.
public struct ListenerID: Sendable, Hashable {
    package let value: Int

    package init(value: Int) {
        self.value = value
    }
}
