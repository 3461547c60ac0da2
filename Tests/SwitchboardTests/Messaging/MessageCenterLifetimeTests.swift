import SocketIOProtocol
@testable import Switchboard
import SwitchboardTestSupport
import Testing

@Suite("MessageCenter lifetimes")
struct MessageCenterLifetimeTests {
    @Test func subscriberObjectsAreHeldWeaklyAndPurged() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let survivor = Recorder("survivor", log: log)
        center.subscribe(survivor, to: .value(at: "msg_body.to", equals: "x"))
        weak var weakGone: Recorder?
        do {
            let gone = Recorder("gone", log: log)
            weakGone = gone
            center.subscribe(gone, to: .value(at: "msg_body.to", equals: "x"))
            center.subscribe(gone)
            #expect(center.subscriberCount == 2)
        }
        #expect(weakGone == nil, "the center did not keep it alive")
        await center.dispatch(message("1", ["to": "x"]))
        #expect(log.order == ["survivor"])
        #expect(center.subscriberCount == 1, "purged without anyone calling unsubscribe")
    }

    @Test func deadSubscribersThatNeverMatchAreSweptToo() {
        let center = MessageCenter()
        for number in 0..<500 {
            let screen = Recorder("screen-\(number)")
            center.subscribe(screen, to: .value(at: "msg_body.order", equals: .number(Double(number))))
        }
        // No dispatch ever reached them; adding subscribers sweeps the dead ones as it goes, so
        // the entries kept stay bounded without a dispatch or a read of subscriberCount.
        #expect(center.registeredCount < 100)
        #expect(center.subscriberCount == 0)
    }

    @Test func closureSubscriptionsCancelOnRelease() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        var subscription: MessageSubscription? = center.subscribe { message in
            log.record("closure", message)
            return .continue
        }
        await center.dispatch(message("1", "x"))
        #expect(subscription?.isActive == true)
        subscription = nil
        await center.dispatch(message("2", "x"))
        #expect(log.ids(of: "closure") == ["1"])
        #expect(center.subscriberCount == 0)
    }

    @Test func streamsDeliverUntilTheConsumerStops() async throws {
        let center = MessageCenter()
        let orders = center.messages(matching: [.value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234")])
        #expect(center.subscriberCount == 1)
        let (received, output) = AsyncStream<MessageID>.makeStream()
        let consumer = Task {
            for await message in orders { output.yield(message.id) }
        }
        await center.dispatch(orderMessage("1", order: "TAINIUBILE1234"))
        await center.dispatch(orderMessage("2", order: "OTHER"))
        await center.dispatch(orderMessage("3", order: "TAINIUBILE1234"))
        #expect(try await received.first(2, "the stream's messages") == ["1", "3"])
        // Cancelling the consuming task terminates the stream, which unsubscribes it.
        consumer.cancel()
        try await withTimeout(10, "the consumer's end") { await consumer.value }
        #expect(center.subscriberCount == 0)
    }

    @Test func aStreamNobodyHoldsIsUnsubscribed() {
        let center = MessageCenter()
        do {
            let stream = center.messages()
            #expect(center.subscriberCount == 1)
            _ = stream
        }
        #expect(center.subscriberCount == 0)
    }

    @Test func streamsEndWhenTheCenterGoesAway() async throws {
        var center: MessageCenter? = MessageCenter()
        let stream = center!.messages()
        await center!.dispatch(message("1", "x"))
        center = nil
        let received = try await withTimeout(10, "the stream's end") {
            var ids: [MessageID] = []
            for await message in stream { ids.append(message.id) }
            return ids
        }
        #expect(received == ["1"])
    }

    @Test func aSubscriptionOutlivingItsCenterIsHarmless() {
        var center: MessageCenter? = MessageCenter()
        let subscription = center!.subscribe { _ in .continue }
        center = nil
        #expect(!subscription.isActive)
        subscription.cancel()
    }
}
