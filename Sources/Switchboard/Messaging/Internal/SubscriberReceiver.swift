import SocketIOProtocol

/// How a subscriber is reached, as the index stores it.
enum SubscriberReceiver: Sendable {
    /// An object the center must not keep alive.
    case object(WeakSubscriber)
    /// A closure, alive until its ``MessageSubscription`` is cancelled or released.
    case closure(@Sendable (Message) async -> MessageDisposition)
    /// An async stream, alive until its consumer stops.
    case stream(AsyncStream<Message>.Continuation)
}

/// A weak reference to a subscriber object.
struct WeakSubscriber: Sendable {
    weak var object: (any MessageSubscriber)?
    /// The object's identity when it subscribed, kept to unregister it after it is gone.
    let identifier: ObjectIdentifier

    init(_ object: any MessageSubscriber) {
        self.object = object
        self.identifier = ObjectIdentifier(object)
    }
}

/// A subscriber resolved for one delivery: objects held strongly until delivered.
struct DeliveryTarget: Sendable {
    enum Receiver: Sendable {
        case object(any MessageSubscriber)
        case closure(@Sendable (Message) async -> MessageDisposition)
        case stream(AsyncStream<Message>.Continuation)
    }

    /// The subscriber's number (its place in LIFO order), to check it is still subscribed.
    let number: UInt64
    let receiver: Receiver
}
