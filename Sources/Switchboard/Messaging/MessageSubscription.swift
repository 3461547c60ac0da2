/// A closure's subscription to a ``MessageCenter``: it lasts until ``cancel()`` or until this
/// object is released, so keep it as long as you want messages.
///
/// ```swift
/// final class CouponBanner {
///     private var subscription: MessageSubscription?
///     func start(_ center: MessageCenter) {
///         subscription = center.subscribe(to: [.anyValue(at: "msg_body.extra.coupon")]) { message in
///             print(message.body)
///             return .continue
///         }
///     }
/// }
/// ```
public final class MessageSubscription: Sendable {
    private weak let center: MessageCenter?
    private let number: UInt64

    init(center: MessageCenter, number: UInt64) {
        self.center = center
        self.number = number
    }

    deinit {
        center?.remove(number: number)
    }

    /// Whether the subscription still receives messages.
    public var isActive: Bool {
        center?.conditions(number: number) != nil
    }

    /// Its conditions: `[]` when it receives everything, `nil` once cancelled.
    public var conditions: Set<MessageCondition>? {
        center?.conditions(number: number)
    }

    /// Adds a condition (OR'ed with the others). Returns whether anything changed: `false` when
    /// cancelled, when the condition is already held, or when it receives everything.
    @discardableResult
    public func subscribe(to condition: MessageCondition) -> Bool {
        center?.subscribe(number: number, to: condition) ?? false
    }

    /// Receives every message from now on, dropping the conditions. Returns whether anything
    /// changed (`false` when cancelled).
    @discardableResult
    public func subscribeToEverything() -> Bool {
        center?.subscribe(number: number, to: nil) ?? false
    }

    /// Removes one condition; removing the last one cancels the subscription.
    @discardableResult
    public func unsubscribe(from condition: MessageCondition) -> Bool {
        center?.unsubscribe(number: number, from: condition) ?? false
    }

    /// Removes every condition on `keyPath`; removing the last one cancels the subscription.
    @discardableResult
    public func unsubscribe(keyPath: JSONKeyPath) -> Bool {
        center?.unsubscribe(number: number, keyPath: keyPath) ?? false
    }

    /// Stops the subscription: the handler is not called again (a call already running finishes).
    public func cancel() {
        center?.remove(number: number)
    }
}
