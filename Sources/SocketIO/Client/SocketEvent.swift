import NIOConcurrencyHelpers

/// An event the server sent, as handlers and async sequences see it.
///
/// ```swift
/// socket.on("echo") { event in
///     print(event.items)
///     event.ack?("got it")   // only when the server asked for an ack
/// }
/// ```
public struct SocketEvent: Sendable {
    /// The event name.
    public let name: String
    /// The arguments, with binary attachments back in place as `JSONValue.binary(_:)`.
    public let items: [JSONValue]
    /// Present when the server asked for an acknowledgement; answers it once.
    public let ack: AckResponder?

    public init(name: String, items: [JSONValue], ack: AckResponder? = nil) {
        self.name = name
        self.items = items
        self.ack = ack
    }
}

/// Answers one server event that asked for an acknowledgement. Only the first answer is sent.
public struct AckResponder: Sendable {
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

/// Identifies a listener added with `on`, `once` or `onAny`, for `off`.
public struct ListenerID: Sendable, Hashable {
    let value: Int
}
