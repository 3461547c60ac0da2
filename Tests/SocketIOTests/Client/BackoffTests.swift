@testable import SocketIO
import SwitchboardCore
import SwitchboardTestSupport
import Testing

/// socket.io's reconnection backoff: the worked table of client-behaviour.md §3 and its bounds.
@Suite("Backoff")
struct BackoffTests {
    static let defaults = Backoff(minimum: .seconds(1), maximum: .seconds(5), jitter: 0.5)

    /// The reference table: the same `r` for every retry, retries 1 to 5.
    @Test(arguments: [
        (0.05, [975, 1950, 3900, 5000, 5000]),
        (0.15, [1075, 2150, 4300, 5000, 5000]),
        (0.55, [1275, 2550, 5000, 5000, 5000]),
        (0.85, [575, 1150, 2300, 4600, 5000]),
        (0.95, [1475, 2950, 5000, 5000, 5000]),
    ])
    func delaysMatchTheReferenceTable(_ random: Double, _ expected: [Int]) {
        let backoff = Box(Self.defaults)
        let delays = expected.indices.map { _ in backoff.value.nextDelay(random: random) }
        #expect(delays == expected.map { .milliseconds($0) })
    }

    /// Ten retries, every draw of `r` on a fine grid: each delay stays within the formula's bounds.
    @Test func tenRetriesStayWithinTheFormulasBounds() {
        let bounds: [ClosedRange<Int>] = [551...1499, 1101...2999, 2201...5000, 4401...5000]
            + Array(repeating: 5000...5000, count: 6)
        for step in 0..<1000 {
            let random = Double(step) / 1000
            let backoff = Box(Self.defaults)
            for (retry, range) in bounds.enumerated() {
                let delay = Int(backoff.value.nextDelay(random: random).wholeMilliseconds)
                #expect(range.contains(delay), "retry \(retry + 1), r = \(random): \(delay) ms")
            }
        }
    }

    @Test func resetStartsFromTheFirstDelayAgain() {
        let backoff = Box(Self.defaults)
        _ = backoff.value.nextDelay(random: 0.85)
        _ = backoff.value.nextDelay(random: 0.85)
        #expect(backoff.value.attempts == 2)
        backoff.value.reset()
        #expect(backoff.value.attempts == 0)
        #expect(backoff.value.nextDelay(random: 0.85) == .milliseconds(575))
    }

    @Test func withoutJitterTheDelayDoublesUpToTheCap() {
        let backoff = Box(Backoff(minimum: .milliseconds(100), maximum: .milliseconds(1000), jitter: 0))
        let delays = (0..<6).map { _ in backoff.value.nextDelay(random: 0.7).wholeMilliseconds }
        #expect(delays == [100, 200, 400, 800, 1000, 1000])
    }

    /// A maximum too long to count in milliseconds saturates to 2^63 ms, which converted back
    /// to Int64 trapped; a `jitter` closure's draw that is not a number trapped in `Int(_:)`.
    @Test func hugeDelaysAndDrawsThatAreNoNumberDoNotTrap() {
        let huge = Box(Backoff(minimum: .seconds(Int64.max / 2), maximum: .seconds(Int64.max / 2), jitter: 0.5))
        for random in [0.0, 0.15, 0.5, 0.85, 0.999] {
            #expect(huge.value.nextDelay(random: random) == .milliseconds(Int64(9.2e18)))
        }
        let nan = Box(Self.defaults)
        #expect(nan.value.nextDelay(random: .nan) == .seconds(1))
        #expect(nan.value.nextDelay(random: .infinity) > .zero)
    }

    @Test func manyAttemptsDoNotOverflow() {
        let backoff = Box(Self.defaults)
        for _ in 0..<200 { _ = backoff.value.nextDelay(random: 0.3) }
        #expect(backoff.value.nextDelay(random: 0.3) == .seconds(5))
    }
}
