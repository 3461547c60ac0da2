import NIOConcurrencyHelpers
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The app's connection-event listener costs the same on the 20,000th event as on the first.
/// (It used to be the whole value of a generic lock box, which wrapped it in one more
/// re-abstraction thunk on every read: each event walked a chain as long as the number of events
/// before it, and `sio serve` slowed to a stop after ~10,000 connections came and went.)
@Suite struct ConnectionEventHookTests {
    @Test("the 20,000th event reaches the listener through as many frames as the first")
    func flatCost() throws {
        let hook = ConnectionEventHook()
        let depths = NIOLockedValueBox<[Int]>([])
        hook.set { _ in depths.withLockedValue { $0.append(CallStack.depth()) } }
        func serve(_ number: Int) {
            hook.emit(.sessionClosed(sid: "s\(number)", reason: "transport close"))
        }
        for number in 0..<100 { serve(number) }
        let first = try #require(depths.withLockedValue { $0.first })
        // Fails at once on the old box (the 100th event ran ~200 frames deeper), before the
        // deeper chains could overflow a test thread's stack.
        try #require(depths.withLockedValue { $0.last } == first)
        for number in 100..<20_000 { serve(number) }
        #expect(depths.withLockedValue { Set($0) } == [first])
        #expect(depths.withLockedValue { $0.count } == 20_000)
    }

    @Test("a listener replaced or removed: later events go to the new one or nowhere")
    func replaceAndRemove() {
        let hook = ConnectionEventHook()
        let seen = NIOLockedValueBox<[String]>([])
        hook.set { event in seen.withLockedValue { $0.append("a \(event)") } }
        hook.emit(.sessionUpgraded(sid: "1"))
        hook.set { event in seen.withLockedValue { $0.append("b \(event)") } }
        hook.emit(.sessionUpgraded(sid: "2"))
        hook.set(nil)
        hook.emit(.sessionUpgraded(sid: "3"))
        #expect(seen.withLockedValue { $0 } == ["a engine 1 upgraded to websocket", "b engine 2 upgraded to websocket"])
    }
}
