import SocketIOProtocol
import Switchboard
import Testing

@Suite("MessageCenter unsubscribe")
struct MessageCenterUnsubscribeTests {
    let orderNo: JSONKeyPath = "msg_body.extra.order_no"

    @Test func oneConditionAtATime() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .value(at: orderNo, equals: "A"))
        center.subscribe(recorder, to: .value(at: orderNo, equals: "B"))
        #expect(center.unsubscribe(recorder, from: .value(at: orderNo, equals: "A")))
        #expect(!center.unsubscribe(recorder, from: .value(at: orderNo, equals: "A")), "already gone")
        await center.dispatch(orderMessage("1", order: "A"))
        await center.dispatch(orderMessage("2", order: "B"))
        #expect(recorder.ids == ["2"])
        #expect(center.conditions(of: recorder) == [.value(at: orderNo, equals: "B")])
    }

    @Test func removingTheLastConditionUnsubscribes() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .value(at: orderNo, equals: "A"))
        center.unsubscribe(recorder, from: .value(at: orderNo, equals: "A"))
        #expect(center.conditions(of: recorder) == nil)
        #expect(center.subscriberCount == 0)
        await center.dispatch(orderMessage("1", order: "A"))
        #expect(recorder.ids.isEmpty)
    }

    @Test func everyConditionOfAKeyPath() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder, to: .value(at: orderNo, equals: "A"))
        center.subscribe(recorder, to: .value(at: orderNo, equals: "B"))
        center.subscribe(recorder, to: .anyValue(at: orderNo))
        center.subscribe(recorder, to: .value(at: "msg_body.title", equals: "paid"))
        #expect(center.unsubscribe(recorder, keyPath: orderNo))
        #expect(center.conditions(of: recorder) == [.value(at: "msg_body.title", equals: "paid")])
        await center.dispatch(orderMessage("1", order: "A", status: "shipped"))
        await center.dispatch(orderMessage("2", order: "C", status: "paid"))
        #expect(recorder.ids == ["2"])
        #expect(!center.unsubscribe(recorder, keyPath: "msg_body.nothing"))
    }

    @Test func theWholeSubscriber() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        let other = Recorder("other")
        center.subscribe(recorder, to: .value(at: orderNo, equals: "A"))
        center.subscribe(recorder, to: .anyValue(at: "msg_body.title"))
        center.subscribe(other, to: .value(at: orderNo, equals: "A"))
        #expect(center.unsubscribe(recorder))
        #expect(!center.unsubscribe(recorder))
        await center.dispatch(orderMessage("1", order: "A"))
        #expect(recorder.ids.isEmpty)
        #expect(other.ids == ["1"], "other subscribers of the same value stay")
    }

    @Test func aSubscriberOfEverythingIsRemovedWhole() async {
        let center = MessageCenter()
        let recorder = Recorder("r")
        center.subscribe(recorder)
        #expect(!center.unsubscribe(recorder, from: .value(at: orderNo, equals: "A")), "it holds no conditions")
        #expect(!center.unsubscribe(recorder, keyPath: orderNo))
        #expect(center.unsubscribe(recorder))
        await center.dispatch(orderMessage("1", order: "A"))
        #expect(recorder.ids.isEmpty)
    }

    @Test func resubscribingGoesToTheFront() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let old = Recorder("old", log: log)
        let new = Recorder("new", log: log)
        center.subscribe(old)
        center.subscribe(new)
        center.unsubscribe(old)
        center.subscribe(old)
        await center.dispatch(message("1", "x"))
        #expect(log.order == ["old", "new"])
    }

    @Test func closureSubscriptionsHaveTheSameVariants() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let subscription = center.subscribe(to: [.value(at: orderNo, equals: "A"), .value(at: orderNo, equals: "B")]) { message in
            log.record("closure", message)
            return .continue
        }
        #expect(subscription.conditions?.count == 2)
        #expect(subscription.unsubscribe(from: .value(at: orderNo, equals: "A")))
        await center.dispatch(orderMessage("1", order: "A"))
        await center.dispatch(orderMessage("2", order: "B"))
        #expect(subscription.subscribe(to: .value(at: "msg_body.title", equals: "paid")))
        #expect(subscription.unsubscribe(keyPath: orderNo))
        await center.dispatch(orderMessage("3", order: "B", status: "paid"))
        #expect(subscription.subscribeToEverything())
        #expect(subscription.conditions == [])
        await center.dispatch(message("4", "anything"))
        subscription.cancel()
        #expect(!subscription.isActive)
        #expect(!subscription.subscribe(to: .anyValue(at: orderNo)), "a cancelled subscription stays cancelled")
        await center.dispatch(message("5", "after cancel"))
        #expect(log.ids(of: "closure") == ["2", "3", "4"])
    }
}
