import Switchboard
import SwitchboardTestSupport
import Testing

/// The default failover policy on a test clock: every signal, the hysteresis, no flapping.
@Suite("Failover policy")
struct FailoverPolicyTests {
    static func seconds(_ value: Int) -> Duration { .seconds(value) }

    @Test func aSingleBlipStaysOnWebSocketTwoFailuresLeave() {
        let policy = Box(DefaultFailoverPolicy())
        #expect(policy.value.initial == .webSocket)
        #expect(policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(0)) == .stay)
        #expect(policy.value.observe(.connected(.webSocket), current: .webSocket, now: .seconds(1)) == .stay)
        // A second failure long after the first: still a blip.
        #expect(policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(40)) == .stay)
        let decision = policy.value.observe(.connectFailed(.webSocket), current: .webSocket, now: .seconds(45))
        guard case .switchTo(.socketIO, _) = decision else {
            Issue.record("expected a switch to Socket.IO, got \(decision)")
            return
        }
    }

    @Test func slowRoundTripsInARowLeaveOneFastOneResets() {
        let policy = Box(DefaultFailoverPolicy())
        let slow = FailoverSignal.roundTrip(.seconds(2))
        #expect(policy.value.observe(slow, current: .webSocket, now: .seconds(1)) == .stay)
        #expect(policy.value.observe(slow, current: .webSocket, now: .seconds(2)) == .stay)
        #expect(policy.value.observe(.roundTrip(.milliseconds(40)), current: .webSocket, now: .seconds(3)) == .stay)
        #expect(policy.value.observe(slow, current: .webSocket, now: .seconds(4)) == .stay)
        #expect(policy.value.observe(slow, current: .webSocket, now: .seconds(5)) == .stay)
        #expect(policy.value.observe(slow, current: .webSocket, now: .seconds(6)) != .stay)
    }

    @Test func itReturnsToWebSocketOnlyAfterAGoodPeriod() {
        let policy = Box(DefaultFailoverPolicy())
        _ = policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(0))
        #expect(policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(1)) != .stay)
        _ = policy.value.observe(.connected(.socketIO), current: .socketIO, now: .seconds(2))
        #expect(policy.value.tick(current: .socketIO, now: .seconds(30)) == .stay)
        // Trouble on Socket.IO too, or a path change: the good period starts again.
        _ = policy.value.observe(.dropped(.socketIO), current: .socketIO, now: .seconds(50))
        #expect(policy.value.tick(current: .socketIO, now: .seconds(100)) == .stay)
        _ = policy.value.observe(.pathChanged(.satisfied), current: .socketIO, now: .seconds(105))
        #expect(policy.value.tick(current: .socketIO, now: .seconds(160)) == .stay)
        #expect(policy.value.tick(current: .socketIO, now: .seconds(165)) == .switchTo(.webSocket, reason: "the network was good for 60.0 seconds"))
    }

    @Test func aReturnThatDoesNotLastDoublesTheNextGoodPeriodAndStabilityResetsIt() {
        let policy = Box(DefaultFailoverPolicy())
        func leave(at second: Int) {
            _ = policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(second))
            _ = policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(second + 1))
        }
        leave(at: 0)
        #expect(policy.value.tick(current: .socketIO, now: .seconds(2)) == .stay)
        #expect(policy.value.tick(current: .socketIO, now: .seconds(62)) != .stay, "back after 60 s")
        leave(at: 70)  // it did not last
        #expect(policy.value.currentGoodPeriod == .seconds(120))
        #expect(policy.value.tick(current: .socketIO, now: .seconds(72)) == .stay)
        #expect(policy.value.tick(current: .socketIO, now: .seconds(180)) == .stay, "not after 60 s this time")
        #expect(policy.value.tick(current: .socketIO, now: .seconds(192)) != .stay, "after 120 s")
        // Stable on WebSocket for the flap window: back to the base period.
        #expect(policy.value.tick(current: .webSocket, now: .seconds(192 + 300)) == .stay)
        #expect(policy.value.currentGoodPeriod == .seconds(60))
    }

    @Test func theGoodPeriodIsCapped() {
        let policy = Box(DefaultFailoverPolicy())
        var now = 0
        for _ in 0..<10 {
            _ = policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(now))
            _ = policy.value.observe(.dropped(.webSocket), current: .webSocket, now: .seconds(now + 1))
            now += 2
            _ = policy.value.tick(current: .socketIO, now: .seconds(now))
            now += Int(policy.value.currentGoodPeriod.components.seconds)
            _ = policy.value.tick(current: .socketIO, now: .seconds(now))
        }
        #expect(policy.value.currentGoodPeriod == .seconds(600))
    }

    @Test(arguments: [FailoverTransport.socketIO, .webSocket])
    func aPinnedPolicyStartsStaysAndAllowsOnlyItsTransport(_ transport: FailoverTransport) {
        let policy: any FailoverPolicy = .pinned(to: transport)
        let other: FailoverTransport = transport == .socketIO ? .webSocket : .socketIO
        #expect(policy.initial == transport)
        #expect(policy.allows(transport) && !policy.allows(other))
        let signals: [FailoverSignal] = [.dropped(transport), .connectFailed(transport), .deadlineMissed(transport), .roundTrip(.seconds(30))]
        let box = Box(policy)
        for (index, signal) in signals.enumerated() {
            #expect(box.value.observe(signal, current: transport, now: .seconds(index)) == .stay)
        }
        #expect(box.value.tick(current: transport, now: .seconds(3_600)) == .stay)
        guard case .switchTo(transport, _) = box.value.tick(current: other, now: .seconds(3_601)) else {
            Issue.record("a pinned channel found elsewhere goes back")
            return
        }
        #expect(DefaultFailoverPolicy().allows(other), "the default policy uses both")
    }
}
