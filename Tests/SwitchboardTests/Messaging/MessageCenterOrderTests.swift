import SocketIOProtocol
import Switchboard
import SwitchboardTestSupport
import Testing

@Suite("MessageCenter order, interception and the processed mark")
struct MessageCenterOrderTests {
    @Test func theMostRecentlyAddedSubscriberReceivesFirst() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let first = Recorder("first", log: log)
        let second = Recorder("second", log: log)
        let third = Recorder("third", log: log)
        center.subscribe(first)
        center.subscribe(second, to: .value(at: "msg_body.kind", equals: "x"))
        center.subscribe(third, to: .anyValue(at: "msg_body.kind"))
        // A later condition does not move a subscriber: it keeps the place it was added at.
        center.subscribe(first, to: .value(at: "msg_body.kind", equals: "x"))
        await center.dispatch(message("1", ["kind": "x"]))
        #expect(log.order == ["third", "second", "first"])
        withExtendedLifetime((first, second, third)) {}
    }

    @Test func orderSpansClosuresObjectsAndStreams() async throws {
        let center = MessageCenter()
        let log = DeliveryLog()
        let object = Recorder("object", log: log)
        center.subscribe(object)
        let stream = center.messages()
        let closure = center.subscribe { message in
            log.record("closure", message)
            return .processed
        }
        let outcome = await center.dispatch(message("1", "hi"))
        #expect(log.order == ["closure", "object"])
        #expect(outcome.delivery?.recipients == 3)
        let streamed = try await stream.first(1)
        #expect(streamed.first?.processed == true, "the stream, added before the closure, comes after it")
        withExtendedLifetime(closure) {}
    }

    @Test func interceptStopsDeliveryToTheRest() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let below = Recorder("below", log: log)
        let interceptor = Recorder("interceptor", log: log, disposition: .intercept)
        center.subscribe(below)
        center.subscribe(interceptor, to: .value(at: "msg_body.kind", equals: "private"))
        let intercepted = await center.dispatch(message("1", ["kind": "private"]))
        let passed = await center.dispatch(message("2", ["kind": "public"]))
        #expect(log.order == ["interceptor", "below"])
        #expect(below.ids == ["2"])
        #expect(intercepted.delivery?.intercepted == true)
        #expect(intercepted.delivery?.recipients == 1)
        #expect(intercepted.delivery?.message.processed == true)
        #expect(passed.delivery?.intercepted == false)
        withExtendedLifetime(interceptor) {}
    }

    @Test func theProcessedMarkTravelsToLaterSubscribers() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let subscribers = [
            Recorder("last", log: log), Recorder("marks", log: log, disposition: .processed), Recorder("first", log: log),
        ]
        for subscriber in subscribers { center.subscribe(subscriber) }
        let outcome = await center.dispatch(message("1", "hi"))
        #expect(log.order == ["first", "marks", "last"])
        #expect(log.processedMarks == [false, false, true])
        #expect(outcome.delivery?.message.processed == true)
        #expect(outcome.delivery?.intercepted == false)
        withExtendedLifetime(subscribers) {}
    }

    @Test func aSubscriberUnsubscribedDuringDeliveryDoesNotGetIt() async {
        let center = MessageCenter()
        let log = DeliveryLog()
        let later = Recorder("later", log: log)
        center.subscribe(later)
        let remover = center.subscribe { message in
            log.record("remover", message)
            center.unsubscribe(later)
            return .continue
        }
        await center.dispatch(message("1", "hi"))
        #expect(log.order == ["remover"])
        withExtendedLifetime(remover) {}
    }
}
