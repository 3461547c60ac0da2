import SocketIOProtocol
@testable import Switchboard
import Testing

/// The routing index alone: a value type driven step by step.
@Suite("SubscriptionIndex")
struct SubscriptionIndexTests {
    let closure: SubscriberReceiver = .closure { _ in .continue }

    func routed(_ index: inout SubscriptionIndex, _ json: JSONValue) -> [UInt64] {
        index.route(json).map(\.number)
    }

    @Test func routesNewestFirstAcrossEveryList() {
        var index = SubscriptionIndex()
        let everything = index.add(closure, condition: nil)                                    // 1
        let byValue = index.add(closure, condition: .value(at: "k", equals: "v"))              // 2
        let present = index.add(closure, condition: .anyValue(at: "k"))                        // 3
        let other = index.add(closure, condition: .value(at: "j", equals: 1))                  // 4
        index.subscribe(everything, to: .value(at: "k", equals: "v"))                          // no effect: OR
        index.subscribe(byValue, to: .value(at: "j", equals: 1))
        #expect(routed(&index, ["k": "v", "j": 1]) == [other, present, byValue, everything])
        #expect(routed(&index, ["k": "w"]) == [present, everything])
        #expect(routed(&index, ["j": 1]) == [other, byValue, everything])
        #expect(routed(&index, ["k": .null]) == [everything])
    }

    @Test func keyPathsInUseAreExactlyTheIndexedOnes() {
        var index = SubscriptionIndex()
        let first = index.add(closure, condition: .value(at: "a.b", equals: 1))
        index.subscribe(first, to: .anyValue(at: "a.b"))
        let second = index.add(closure, condition: .value(at: "c", equals: 2))
        #expect(Set(index.routes.keys) == ["a.b", "c"])
        index.unsubscribe(first, keyPath: "a.b")
        #expect(Set(index.routes.keys) == ["c"], "a key path nobody uses is not looked up any more")
        index.remove(second)
        #expect(index.routes.isEmpty)
        #expect(index.entries.isEmpty)
    }

    @Test func tenThousandOrdersRouteToOneSubscriber() {
        var index = SubscriptionIndex()
        let numbers = (0..<10_000).map { order in
            index.add(closure, condition: .value(at: "msg_body.extra.order_no", equals: .string("ORDER-\(order)")))
        }
        #expect(index.routes.count == 1, "one key path to look up, whatever the subscriber count")
        #expect(routed(&index, orderMessage("1", order: "ORDER-4242")) == [numbers[4242]])
        #expect(routed(&index, orderMessage("2", order: "ORDER-NONE")) == [])
    }

    @Test func mergingDropsRepeats() {
        #expect(SubscriptionIndex.newestFirst([[1, 3, 5], [2, 3, 6], [5]]) == [6, 5, 3, 2, 1])
        #expect(SubscriptionIndex.newestFirst([[1, 2]]) == [2, 1])
        #expect(SubscriptionIndex.newestFirst([]) == [])
    }

    @Test func sortedNumbersStayUniqueAndOrdered() {
        var numbers = SortedNumbers()
        for number: UInt64 in [5, 1, 9, 5, 3] { numbers.insert(number) }
        #expect(numbers.numbers == [1, 3, 5, 9])
        numbers.remove(4)
        numbers.remove(5)
        #expect(numbers.numbers == [1, 3, 9])
    }

    @Test func duplicateFilterByItself() {
        var filter = DuplicateFilter(window: DuplicateWindow(count: 2, duration: .seconds(5)))
        let admitted = [
            filter.admit("a", at: .zero),
            filter.admit("a", at: .seconds(4)),    // within 5 s: a duplicate
            filter.admit("b", at: .seconds(4)),
            filter.admit("a", at: .seconds(5)),    // 5 s after the first: forgotten
        ]
        #expect(admitted == [true, false, true, true])
        #expect(filter.rememberedCount == 2)
    }
}
