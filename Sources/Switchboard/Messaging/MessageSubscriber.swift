/// An object that receives messages from a ``MessageCenter``. The center holds it weakly: when
/// the object goes away its subscriptions go with it, without anyone calling `unsubscribe`.
///
/// ```swift
/// @MainActor final class OrderScreen: MessageSubscriber {
///     func receive(_ message: Message) async -> MessageDisposition {
///         show(message.body)
///         return .processed        // later subscribers see message.processed == true
///     }
/// }
/// center.subscribe(screen, to: .value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234"))
/// ```
///
/// `receive` runs on the task that dispatches the message, one subscriber after another (the
/// most recently added first), never while the center holds a lock. An actor-isolated
/// implementation (a `@MainActor` screen) is awaited there, so the next subscriber gets the
/// message after this one returned.
public protocol MessageSubscriber: AnyObject, Sendable {
    /// Handles one message and says whether it goes on to the next subscriber.
    func receive(_ message: Message) async -> MessageDisposition
}

/// What a subscriber did with a message, which decides what later subscribers see.
public enum MessageDisposition: Sendable, Hashable {
    /// Pass it on unchanged.
    case `continue`
    /// Mark it processed and pass it on: later subscribers see ``Message/processed`` `== true`.
    case processed
    /// Keep it: later subscribers do not receive it (it counts as processed).
    case intercept
}

/// What became of one dispatched message.
public enum DispatchOutcome: Sendable, Hashable {
    /// Delivered to the subscribers it matched (possibly none).
    case delivered(Delivery)
    /// Dropped: a message with this id was dispatched within the duplicate window.
    case duplicate(MessageID)
    /// Dropped: not a message (counted and logged).
    case rejected(MessageRejection)

    /// How a message reached its subscribers.
    public struct Delivery: Sendable, Hashable {
        /// The message as the last subscriber left it (with its ``Message/processed`` mark).
        public var message: Message
        /// How many subscribers received it.
        public var recipients: Int
        /// Whether a subscriber intercepted it, so that later ones did not receive it.
        public var intercepted: Bool
    }

    /// The delivery, when the message was delivered.
    public var delivery: Delivery? {
        if case .delivered(let delivery) = self { return delivery }
        return nil
    }
}
