import SocketIOProtocol

/// Who is subscribed to what, indexed so that routing a message costs one lookup per distinct
/// key path in use — not one check per subscriber.
///
/// - `everything`: subscribers that receive every message;
/// - `routes[keyPath].byValue[value]`: subscribers with the condition `keyPath == value`;
/// - `routes[keyPath].present`: subscribers with the condition "`keyPath` has a non-null value".
///
/// Every subscriber has a number, increasing in the order subscribers were added; routing merges
/// the matching lists and delivers from the highest number down (the most recently added first),
/// each subscriber once even when several of its conditions match.
///
/// A value type with no locks, clocks or callbacks: ``MessageCenter`` holds it in a lock and
/// delivers outside it.
struct SubscriptionIndex: Sendable {
    /// What one subscriber asked for. An empty condition set never exists: the subscriber is removed.
    enum Interest: Sendable, Hashable {
        case everything
        case conditions(Set<MessageCondition>)
    }

    struct Entry: Sendable {
        let receiver: SubscriberReceiver
        var interest: Interest
    }

    /// The subscribers of one key path.
    struct Route: Sendable {
        var byValue: [JSONValue: SortedNumbers] = [:]
        var present = SortedNumbers()
        var conditionCount = 0
    }

    private(set) var entries: [UInt64: Entry] = [:]
    private var objects: [ObjectIdentifier: UInt64] = [:]
    private(set) var everything = SortedNumbers()
    private(set) var routes: [JSONKeyPath: Route] = [:]
    private var nextNumber: UInt64 = 1
    private var addsSinceSweep = 0

    /// Whether subscriber `number` is still subscribed.
    func contains(_ number: UInt64) -> Bool {
        entries[number] != nil
    }

    /// The interest of subscriber `number`, if subscribed.
    func interest(of number: UInt64) -> Interest? {
        entries[number]?.interest
    }

    /// The number of a live subscribed object.
    func number(of object: any MessageSubscriber) -> UInt64? {
        guard let number = objects[ObjectIdentifier(object)],
              case .object(let weak)? = entries[number]?.receiver,
              weak.object === object
        else { return nil }
        return number
    }

    /// Every stream continuation, to finish them when the center goes away.
    var streamContinuations: [AsyncStream<Message>.Continuation] {
        entries.values.compactMap { entry in
            if case .stream(let continuation) = entry.receiver { return continuation }
            return nil
        }
    }

    // MARK: Adding

    /// Adds a new subscriber with one condition (`nil`: everything) and returns its number.
    mutating func add(_ receiver: SubscriberReceiver, condition: MessageCondition?) -> UInt64 {
        addsSinceSweep += 1
        if addsSinceSweep > max(64, entries.count) { sweep() }
        let number = nextNumber
        nextNumber += 1
        if let condition {
            entries[number] = Entry(receiver: receiver, interest: .conditions([condition]))
            index(condition, number)
        } else {
            entries[number] = Entry(receiver: receiver, interest: .everything)
            everything.insert(number)
        }
        return number
    }

    /// Subscribes `object` (adding it, or adding to its conditions) and returns its number.
    mutating func subscribe(object: any MessageSubscriber, condition: MessageCondition?) -> UInt64 {
        if let number = number(of: object) {
            subscribe(number, to: condition)
            return number
        }
        let identifier = ObjectIdentifier(object)
        // A stale entry at this identifier belongs to a dead object whose memory was reused.
        if let stale = objects[identifier] { remove(stale) }
        let number = add(.object(WeakSubscriber(object)), condition: condition)
        objects[identifier] = number
        return number
    }

    /// Adds a condition to subscriber `number` (`nil`: everything, dropping its conditions).
    /// Conditions are OR'ed, so a subscriber that receives everything stays so.
    @discardableResult
    mutating func subscribe(_ number: UInt64, to condition: MessageCondition?) -> Bool {
        guard let entry = entries[number] else { return false }
        switch (entry.interest, condition) {
        case (.everything, _):
            return false
        case (.conditions(let conditions), nil):
            for condition in conditions { unindex(condition, number) }
            entries[number]?.interest = .everything
            everything.insert(number)
            return true
        case (.conditions(var conditions), let condition?):
            guard conditions.insert(condition).inserted else { return false }
            entries[number]?.interest = .conditions(conditions)
            index(condition, number)
            return true
        }
    }

    // MARK: Removing

    /// What an unsubscribe did. A subscriber removed comes back with its entry, to be let go
    /// after the center's lock: a closure's captures may `deinit` into the center (a
    /// ``MessageSubscription`` cancelling itself), which would take the lock again.
    enum Unsubscribed {
        case nothing
        case condition
        case subscriber(Entry)

        /// Whether anything changed.
        var changed: Bool {
            switch self {
            case .nothing: false
            case .condition, .subscriber: true
            }
        }
    }

    /// Removes one condition of subscriber `number`; without conditions left, the subscriber.
    @discardableResult
    mutating func unsubscribe(_ number: UInt64, from condition: MessageCondition) -> Unsubscribed {
        unsubscribe(number) { $0 == condition }
    }

    /// Removes every condition of subscriber `number` on `keyPath`; without conditions left,
    /// the subscriber.
    @discardableResult
    mutating func unsubscribe(_ number: UInt64, keyPath: JSONKeyPath) -> Unsubscribed {
        unsubscribe(number) { $0.keyPath == keyPath }
    }

    private mutating func unsubscribe(_ number: UInt64, where shouldRemove: (MessageCondition) -> Bool) -> Unsubscribed {
        guard case .conditions(var conditions)? = entries[number]?.interest else { return .nothing }
        let removed = conditions.filter(shouldRemove)
        guard !removed.isEmpty else { return .nothing }
        if removed.count == conditions.count {
            return remove(number).map(Unsubscribed.subscriber) ?? .nothing
        }
        for condition in removed {
            conditions.remove(condition)
            unindex(condition, number)
        }
        entries[number]?.interest = .conditions(conditions)
        return .condition
    }

    /// Removes subscriber `number`; its entry, if it had one.
    @discardableResult
    mutating func remove(_ number: UInt64) -> Entry? {
        guard let entry = entries.removeValue(forKey: number) else { return nil }
        switch entry.interest {
        case .everything:
            everything.remove(number)
        case .conditions(let conditions):
            for condition in conditions { unindex(condition, number) }
        }
        if case .object(let weak) = entry.receiver, objects[weak.identifier] == number {
            objects.removeValue(forKey: weak.identifier)
        }
        return entry
    }

    /// Removes every subscriber object that no longer exists.
    mutating func sweep() {
        addsSinceSweep = 0
        let dead = entries.compactMap { number, entry -> UInt64? in
            if case .object(let weak) = entry.receiver, weak.object == nil { return number }
            return nil
        }
        for number in dead { remove(number) }
    }

    // MARK: Index upkeep

    private mutating func index(_ condition: MessageCondition, _ number: UInt64) {
        routes[condition.keyPath, default: Route()].insert(number, for: condition.value)
    }

    private mutating func unindex(_ condition: MessageCondition, _ number: UInt64) {
        guard var route = routes.removeValue(forKey: condition.keyPath) else { return }
        route.remove(number, for: condition.value)
        if route.conditionCount > 0 { routes[condition.keyPath] = route }
    }
}

extension SubscriptionIndex.Route {
    mutating func insert(_ number: UInt64, for value: JSONValue?) {
        conditionCount += 1
        if let value {
            byValue[value, default: SortedNumbers()].insert(number)
        } else {
            present.insert(number)
        }
    }

    mutating func remove(_ number: UInt64, for value: JSONValue?) {
        conditionCount -= 1
        if let value {
            guard var numbers = byValue.removeValue(forKey: value) else { return }
            numbers.remove(number)
            if !numbers.isEmpty { byValue[value] = numbers }
        } else {
            present.remove(number)
        }
    }
}
