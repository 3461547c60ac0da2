import NIOConcurrencyHelpers
import SocketIOProtocol
import Switchboard
import SwitchboardTestSupport
import Testing

@Suite("MessageCenter concurrency")
struct MessageCenterConcurrencyTests {
    /// 1,000 tasks at once: a third dispatch, a third subscribe and unsubscribe objects, a third
    /// subscribe and cancel closures and streams. Run under `--sanitize=thread` too.
    @Test func concurrentSubscribeUnsubscribeAndDispatch() async throws {
        let center = MessageCenter()
        let witness = Recorder("witness")
        center.subscribe(witness)
        let dispatches = NIOLockedValueBox(0)

        try await withTimeout(60, "1,000 concurrent tasks") {
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<1_000 {
                    group.addTask {
                        switch task % 3 {
                        case 0:
                            let outcome = await center.dispatch(orderMessage("m\(task)", order: .string("ORDER-\(task % 7)")))
                            if outcome.delivery != nil { dispatches.withLockedValue { $0 += 1 } }
                        case 1:
                            let screen = Recorder("screen-\(task)")
                            center.subscribe(screen, to: .value(at: "msg_body.extra.order_no", equals: .string("ORDER-\(task % 7)")))
                            center.subscribe(screen, to: .anyValue(at: "msg_body.title"))
                            await center.dispatch(orderMessage("s\(task)", order: .string("ORDER-\(task % 7)")))
                            center.unsubscribe(screen, keyPath: "msg_body.title")
                            center.unsubscribe(screen)
                            #expect(screen.ids.contains(.string("s\(task)")), "its own message reached it")
                        default:
                            let subscription = center.subscribe(to: [.anyValue(at: "msg_body.extra.order_no")]) { _ in .processed }
                            let stream = center.messages(matching: [.value(at: "msg_id", equals: .string("never"))])
                            _ = subscription.unsubscribe(keyPath: "msg_body.extra.order_no")
                            subscription.cancel()
                            _ = stream
                        }
                    }
                }
            }
        }
        let dispatched = dispatches.withLockedValue { $0 }
        #expect(dispatched == 334)
        #expect(witness.ids.count == 334 + 333, "every accepted message reached the subscriber that stayed, once")
        #expect(Set(witness.ids).count == witness.ids.count)
        #expect(center.statistics.dispatched == 667)
        #expect(center.subscriberCount == 1, "only the witness is left")
    }
}
