import NIOConcurrencyHelpers
import SocketIOProtocol
import Switchboard
import Testing

/// A closure subscription's captures are let go outside the center's lock. When removing its
/// last condition removed the subscriber, its entry (and the closure) was dropped under the
/// lock; a capture whose `deinit` let another subscription go (which cancels itself through
/// the center) then took the lock again: a deadlock.
@Suite struct SubscriptionReleaseTests {
    /// Lets its subscription go when it goes.
    final class Owner: Sendable {
        let subscription: MessageSubscription
        let gone: NIOLockedValueBox<Bool>

        init(_ subscription: MessageSubscription, gone: NIOLockedValueBox<Bool>) {
            self.subscription = subscription
            self.gone = gone
        }

        deinit { gone.withLockedValue { $0 = true } }
    }

    /// A subscription on `condition` whose closure alone holds an ``Owner`` of another one.
    static func subscribe(_ center: MessageCenter, to condition: MessageCondition, gone: NIOLockedValueBox<Bool>) -> MessageSubscription {
        let owner = Owner(center.subscribe { _ in .continue }, gone: gone)
        return center.subscribe(to: [condition]) { _ in
            _ = owner
            return .continue
        }
    }

    @Test(arguments: [false, true])
    func removingTheLastConditionLetsTheClosureGoOutsideTheLock(byKeyPath: Bool) {
        let center = MessageCenter()
        let gone = NIOLockedValueBox(false)
        let condition = MessageCondition.anyValue(at: "msg_body.title")
        let subscription = Self.subscribe(center, to: condition, gone: gone)
        let changed = byKeyPath ? subscription.unsubscribe(keyPath: "msg_body.title") : subscription.unsubscribe(from: condition)
        #expect(changed)
        #expect(gone.withLockedValue { $0 }, "the closure and what it held are let go")
    }
}
