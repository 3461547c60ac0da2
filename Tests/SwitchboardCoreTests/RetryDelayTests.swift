import SwitchboardCore
import Testing

/// The wait between retries that the failover channel's reconnection and the cluster's writes
/// share: 50 ms, doubling, held at the cap.
@Suite struct RetryDelayTests {
    @Test func doublesUpToTheCap() {
        var delay = RetryDelay(cap: .seconds(1))
        let waits = (0..<7).map { _ in delay.next() }
        #expect(waits == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
    }

    @Test func isCappedOnceTheWaitsReachTheCap() {
        var delay = RetryDelay(first: .milliseconds(300), cap: .seconds(1))
        var capped: [Bool] = []
        for _ in 0..<4 {
            capped.append(delay.isCapped)
            _ = delay.next()
        }
        // 300, 600, then 1 s (the cap) from the third wait on.
        #expect(capped == [false, false, true, true])
    }

    @Test func aFirstWaitAboveTheCapIsTheCap() {
        var delay = RetryDelay(first: .seconds(5), cap: .seconds(2))
        #expect(delay.next() == .seconds(2))
    }
}
