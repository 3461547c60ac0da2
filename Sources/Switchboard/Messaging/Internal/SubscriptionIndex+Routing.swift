import SocketIOProtocol

extension SubscriptionIndex {
    /// The subscribers `json` goes to, most recently added first, each once; subscriber objects
    /// that no longer exist are removed on the way.
    ///
    /// Cost: one key-path lookup per distinct key path in use, one hash lookup per path found,
    /// then work proportional to the number of matches — not to the number of subscribers.
    mutating func route(_ json: JSONValue) -> [DeliveryTarget] {
        var lists: [[UInt64]] = []
        if !everything.isEmpty { lists.append(everything.numbers) }
        for (keyPath, route) in routes {
            guard let found = keyPath.value(in: json) else { continue }
            if !found.isNull, !route.present.isEmpty { lists.append(route.present.numbers) }
            if let numbers = route.byValue[found] { lists.append(numbers.numbers) }
        }
        let numbers = Self.newestFirst(lists)
        var targets: [DeliveryTarget] = []
        targets.reserveCapacity(numbers.count)
        var dead: [UInt64] = []
        for number in numbers {
            guard let entry = entries[number] else { continue }
            switch entry.receiver {
            case .object(let weak):
                guard let object = weak.object else {
                    dead.append(number)
                    continue
                }
                targets.append(DeliveryTarget(number: number, receiver: .object(object)))
            case .closure(let handler):
                targets.append(DeliveryTarget(number: number, receiver: .closure(handler)))
            case .stream(let continuation):
                targets.append(DeliveryTarget(number: number, receiver: .stream(continuation)))
            }
        }
        for number in dead { remove(number) }
        return targets
    }

    /// Merges ascending lists into one descending list without repeats.
    static func newestFirst(_ lists: [[UInt64]]) -> [UInt64] {
        switch lists.count {
        case 0:
            return []
        case 1:
            return lists[0].reversed()
        default:
            var merged = lists.flatMap { $0 }
            merged.sort(by: >)
            var unique: [UInt64] = []
            unique.reserveCapacity(merged.count)
            for number in merged where unique.last != number { unique.append(number) }
            return unique
        }
    }
}
