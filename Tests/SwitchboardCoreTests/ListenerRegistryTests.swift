import NIOConcurrencyHelpers
import SwitchboardCore
import Testing

/// The listener table holds the event names that have handlers, no more: a client that waits
/// for each reply under a name of its own (`once("reply:\(id)")`) must not grow it by a key per
/// reply, nor make every `off` walk all the names it ever used.
@Suite struct ListenerRegistryTests {
    @Test func aFiredOnceListenerTakesItsEventNameWithIt() {
        var registry = ListenerRegistry<Int>()
        let calls = NIOLockedValueBox(0)
        let kept = registry.add("kept", once: false) { _ in }
        for id in 0..<1_000 {
            _ = registry.add("reply:\(id)", once: true) { _ in calls.withLockedValue { $0 += 1 } }
        }
        #expect(registry.eventNameCount == 1_001)
        for id in 0..<1_000 {
            for handler in registry.take(for: "reply:\(id)", includeAny: false) { handler(id) }
        }
        #expect(calls.withLockedValue { $0 } == 1_000)
        #expect(registry.eventNameCount == 1, "only `kept` is left")
        #expect(registry.take(for: "kept", includeAny: false).count == 1)
        registry.remove(kept)
        #expect(registry.eventNameCount == 0)
    }

    @Test func removingTheLastListenerOfANameTakesTheName() {
        var registry = ListenerRegistry<Int>()
        let ids = (0..<1_000).map { id in registry.add("event:\(id)", once: false) { _ in } }
        let second = registry.add("event:0", once: false) { _ in }
        for id in ids { registry.remove(id) }
        #expect(registry.eventNameCount == 1, "`event:0` still has a listener")
        #expect(registry.take(for: "event:0", includeAny: false).count == 1)
        registry.remove(second)
        #expect(registry.eventNameCount == 0)
    }

    @Test func aOnceListenerBesideALastingOneKeepsTheName() {
        var registry = ListenerRegistry<Int>()
        _ = registry.add("tick", once: true) { _ in }
        _ = registry.add("tick", once: false) { _ in }
        #expect(registry.take(for: "tick", includeAny: false).count == 2)
        #expect(registry.take(for: "tick", includeAny: false).count == 1, "the once listener went")
        #expect(registry.eventNameCount == 1)
    }
}
