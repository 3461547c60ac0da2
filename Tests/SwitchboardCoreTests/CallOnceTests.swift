import NIOConcurrencyHelpers
import SwitchboardCore
import SwitchboardTestSupport
import Testing

/// `CallOnce` runs its action once whoever asks; `Callback` keeps a function in a box without
/// the box wrapping it again on every read.
@Suite struct CallOnceTests {
    @Test("the action runs on the first run() only, and hasRun says so")
    func runsOnce() {
        let count = NIOLockedValueBox(0)
        let once = CallOnce { count.withLockedValue { $0 += 1 } }
        #expect(!once.hasRun)
        once.run()
        once.run()
        #expect(once.hasRun)
        #expect(count.withLockedValue { $0 } == 1)
    }

    @Test("runs from many tasks at once: exactly one of them runs the action")
    func concurrentRuns() async {
        let count = NIOLockedValueBox(0)
        let once = CallOnce { count.withLockedValue { $0 += 1 } }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<64 { group.addTask { once.run() } }
        }
        #expect(count.withLockedValue { $0 } == 1)
    }

    @Test("a handler read from a locked box 20,000 times is called at the same stack depth each time")
    func handlerReadsDoNotNest() throws {
        let depths = NIOLockedValueBox<[Int]>([])
        let box = NIOLockedValueBox<Callback<Int>?>(Callback { _ in depths.withLockedValue { $0.append(CallStack.depth()) } })
        func callThroughTheBox(_ value: Int) {
            let handler = box.withLockedValue { $0 }
            handler?(value)
        }
        for value in 0..<100 { callThroughTheBox(value) }
        let first = try #require(depths.withLockedValue { $0.first })
        try #require(depths.withLockedValue { $0.last } == first)
        for value in 100..<20_000 { callThroughTheBox(value) }
        #expect(depths.withLockedValue { Set($0) } == [first])
    }
}
