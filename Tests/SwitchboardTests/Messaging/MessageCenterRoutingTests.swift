import SocketIOProtocol
import Switchboard
import Testing

@Suite("MessageCenter routing")
struct MessageCenterRoutingTests {
    let orderNo: JSONKeyPath = "msg_body.extra.order_no"

    @Test func aConditionSelectsItsMessagesOnly() async {
        let center = MessageCenter()
        let screen = Recorder("screen")
        center.subscribe(screen, to: .value(at: orderNo, equals: "TAINIUBILE1234"))
        await center.dispatch(orderMessage("1", order: "TAINIUBILE1234"))
        await center.dispatch(orderMessage("2", order: "OTHER"))
        await center.dispatch(orderMessage("3", order: "TAINIUBILE1234"))
        #expect(screen.ids == ["1", "3"])
        #expect(center.statistics.dispatched == 3)
    }

    @Test func noConditionMeansEveryMessage() async {
        let center = MessageCenter()
        let all = Recorder("all")
        center.subscribe(all)
        await center.dispatch(orderMessage("1", order: "A"))
        await center.dispatch(message("2", "no order at all"))
        #expect(all.ids == ["1", "2"])
    }

    @Test func equalityIsJSONTyped() async {
        let center = MessageCenter()
        let wantsString = Recorder("string")
        let wantsNumber = Recorder("number")
        center.subscribe(wantsString, to: .value(at: orderNo, equals: "1"))
        center.subscribe(wantsNumber, to: .value(at: orderNo, equals: 1))
        await center.dispatch(orderMessage("a", order: "1"))
        await center.dispatch(orderMessage("b", order: 1))
        await center.dispatch(orderMessage("c", order: 1.0))
        await center.dispatch(orderMessage("d", order: true))
        #expect(wantsString.ids == ["a"])
        #expect(wantsNumber.ids == ["b", "c"], "1 and 1.0 are the same JSON number")
    }

    @Test func objectAndArrayValuesCompareStructurally() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .value(at: "msg_body.where", equals: ["city": "Taipei", "zip": 100]))
        center.subscribe(recorder, to: .value(at: "msg_body.tags", equals: ["a", "b"]))
        await center.dispatch(message("1", ["where": ["zip": 100, "city": "Taipei"]]))   // key order differs
        await center.dispatch(message("2", ["tags": ["b", "a"]]))                         // element order matters
        await center.dispatch(message("3", ["tags": ["a", "b"]]))
        #expect(recorder.ids == ["1", "3"])
    }

    @Test func keyPathWithoutValueMeansANonNullValueThere() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .anyValue(at: "msg_body.extra.coupon"))
        await center.dispatch(message("1", ["extra": ["coupon": "SAVE10"]]))
        await center.dispatch(message("2", ["extra": ["coupon": .null]]))
        await center.dispatch(message("3", ["extra": [:]]))
        await center.dispatch(message("4", ["extra": ["coupon": false]]))
        #expect(recorder.ids == ["1", "4"], "present and non-null, whatever its type")
    }

    @Test func aNullValueConditionMatchesAnExplicitNullOnly() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .value(at: "msg_body.extra.coupon", equals: .null))
        await center.dispatch(message("1", ["extra": ["coupon": .null]]))
        await center.dispatch(message("2", ["extra": [:]]))
        #expect(recorder.ids == ["1"])
    }

    @Test func conditionsAreOredAndDeliverOnce() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .value(at: orderNo, equals: "A"))
        center.subscribe(recorder, to: .value(at: "msg_body.title", equals: "shipped"))
        center.subscribe(recorder, to: .anyValue(at: orderNo))
        await center.dispatch(orderMessage("1", order: "A", status: "shipped"))   // all three match
        await center.dispatch(orderMessage("2", order: "B", status: "shipped"))   // two match
        await center.dispatch(message("3", ["title": "paid"]))                    // none
        #expect(recorder.ids == ["1", "2"], "once per message however many conditions match")
        #expect(center.conditions(of: recorder)?.count == 3)
    }

    @Test func subscribingWithoutConditionDropsTheConditions() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .value(at: orderNo, equals: "A"))
        center.subscribe(recorder)
        #expect(center.conditions(of: recorder) == [])
        await center.dispatch(orderMessage("1", order: "B"))
        // Conditions are OR'ed, so a condition added to "everything" changes nothing.
        center.subscribe(recorder, to: .value(at: orderNo, equals: "A"))
        #expect(center.conditions(of: recorder) == [])
        await center.dispatch(orderMessage("2", order: "C"))
        #expect(recorder.ids == ["1", "2"])
    }

    @Test func manySubscribersEachGetTheirOwnOrder() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let screens = (0..<1_000).map { Recorder("order-\($0)", log: log) }
        for (number, screen) in screens.enumerated() {
            center.subscribe(screen, to: .value(at: orderNo, equals: .string("ORDER-\(number)")))
        }
        for number in [0, 500, 999, 500] {
            await center.dispatch(orderMessage("m\(number)-\(log.count)", order: .string("ORDER-\(number)")))
        }
        #expect(log.order == ["order-0", "order-500", "order-999", "order-500"])
        #expect(center.subscriberCount == 1_000)
    }

    @Test func messagesNobodyWantsAreStillDispatched() async {
        let center = MessageCenter()
        let outcome = await center.dispatch(orderMessage("1", order: "A"))
        #expect(outcome.delivery?.recipients == 0)
        #expect(center.statistics.dispatched == 1)
    }
}
