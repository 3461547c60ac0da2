extension MessageCenter {
    // MARK: Subscriber objects (held weakly)

    /// Subscribes `subscriber` to every message, dropping any conditions it had.
    ///
    /// A subscriber added for the first time goes first in delivery order; one already
    /// subscribed keeps its place.
    public func subscribe(_ subscriber: some MessageSubscriber) {
        withState { _ = $0.index.subscribe(object: subscriber, condition: nil) }
    }

    /// Subscribes `subscriber` to messages matching `condition`, in addition to its other
    /// conditions (it receives a message when any of them matches). A subscriber that receives
    /// everything keeps receiving everything.
    public func subscribe(_ subscriber: some MessageSubscriber, to condition: MessageCondition) {
        withState { _ = $0.index.subscribe(object: subscriber, condition: condition) }
    }

    /// Removes one condition of `subscriber`; when it was the last one, the subscriber is
    /// unsubscribed. Returns whether anything changed (`false` for a subscriber that receives
    /// everything: remove it with ``unsubscribe(_:)``).
    @discardableResult
    public func unsubscribe(_ subscriber: some MessageSubscriber, from condition: MessageCondition) -> Bool {
        withState { state in
            guard let number = state.index.number(of: subscriber) else { return SubscriptionIndex.Unsubscribed.nothing }
            return state.index.unsubscribe(number, from: condition)
        }.changed
    }

    /// Removes every condition of `subscriber` on `keyPath` (any value, and "has a value");
    /// when none is left, the subscriber is unsubscribed. Returns whether anything changed.
    @discardableResult
    public func unsubscribe(_ subscriber: some MessageSubscriber, keyPath: JSONKeyPath) -> Bool {
        withState { state in
            guard let number = state.index.number(of: subscriber) else { return SubscriptionIndex.Unsubscribed.nothing }
            return state.index.unsubscribe(number, keyPath: keyPath)
        }.changed
    }

    /// Unsubscribes `subscriber` entirely. Returns whether it was subscribed.
    @discardableResult
    public func unsubscribe(_ subscriber: some MessageSubscriber) -> Bool {
        withState { state in
            guard let number = state.index.number(of: subscriber) else { return false }
            return state.index.remove(number) != nil
        }
    }

    /// Whether `subscriber` is subscribed, and to what: `nil` when it is not, `[]` when it
    /// receives everything, otherwise its conditions.
    public func conditions(of subscriber: some MessageSubscriber) -> Set<MessageCondition>? {
        withState { state in
            guard let number = state.index.number(of: subscriber) else { return nil }
            return state.index.interest(of: number)?.conditions
        }
    }

    // MARK: Closures (held by the returned subscription)

    /// Calls `handler` for every message matching any of `conditions` (every message when
    /// `conditions` is empty), until the returned subscription is cancelled or released.
    ///
    /// ```swift
    /// let subscription = center.subscribe(to: [.value(at: "msg_body.type", equals: "coupon")]) { message in
    ///     await toasts.show(message.body)
    ///     return .processed
    /// }
    /// ```
    public func subscribe(
        to conditions: [MessageCondition] = [],
        _ handler: @escaping @Sendable (Message) async -> MessageDisposition
    ) -> MessageSubscription {
        let number = withState { state in
            let number = state.index.add(.closure(handler), condition: conditions.first)
            for condition in conditions.dropFirst() { state.index.subscribe(number, to: condition) }
            return number
        }
        return MessageSubscription(center: self, number: number)
    }

    // MARK: Subscriptions by number, for MessageSubscription and streams

    @discardableResult
    func subscribe(number: UInt64, to condition: MessageCondition?) -> Bool {
        withState { $0.index.subscribe(number, to: condition) }
    }

    // Each returns what it removed, so a closure's entry is let go after the lock.

    @discardableResult
    func unsubscribe(number: UInt64, from condition: MessageCondition) -> Bool {
        withState { $0.index.unsubscribe(number, from: condition) }.changed
    }

    @discardableResult
    func unsubscribe(number: UInt64, keyPath: JSONKeyPath) -> Bool {
        withState { $0.index.unsubscribe(number, keyPath: keyPath) }.changed
    }

    func remove(number: UInt64) {
        _ = withState { $0.index.remove(number) }
    }

    func conditions(number: UInt64) -> Set<MessageCondition>? {
        withState { $0.index.interest(of: number)?.conditions }
    }
}

extension SubscriptionIndex.Interest {
    /// `[]` for everything, otherwise the conditions.
    var conditions: Set<MessageCondition> {
        switch self {
        case .everything: []
        case .conditions(let conditions): conditions
        }
    }
}
