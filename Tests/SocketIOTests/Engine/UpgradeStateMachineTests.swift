import DequeModule
@testable import SocketIO
import SocketIOProtocol
import Testing

@Suite struct UpgradeStateMachineTests {
    @Test func probePauseSwitchInOrder() {
        var machine = UpgradeStateMachine()
        #expect(machine.start(probe: 7) == .openProbe)
        #expect(machine.start(probe: 8) == .none, "one upgrade attempt per session")
        #expect(!machine.holdsPackets)
        #expect(machine.probeReceived(.pong("probe"), from: 7) == .pausePolling)
        #expect(machine.holdsPackets, "packets are held while polling pauses")
        #expect(machine.pollingPaused() == .switchTo(probe: 7))
        #expect(machine.state == .upgraded)
        #expect(!machine.holdsPackets)
        #expect(machine.pollingPaused() == .none)
    }

    @Test(arguments: [EnginePacket.pong(""), .message("x"), .ping("probe"), .noop])
    func anyOtherAnswerAbandonsTheProbe(_ answer: EnginePacket) {
        var machine = UpgradeStateMachine()
        _ = machine.start(probe: 1)
        #expect(machine.probeReceived(answer, from: 1) == .abandonProbe)
        #expect(machine.state == .failed)
    }

    @Test func aFailedOrLateProbeIsAbandonedOnceAndStaleProbesAreIgnored() {
        var machine = UpgradeStateMachine()
        _ = machine.start(probe: 1)
        #expect(machine.probeReceived(.pong("probe"), from: 2) == .none, "another transport's packet")
        #expect(machine.probeFailed(2) == .none)
        #expect(machine.probeFailed(1) == .abandonProbe)
        #expect(machine.probeFailed(1) == .none)
        #expect(machine.pollingPaused() == .none)
    }

    @Test func aProbeThatDiesWhilePollingPausesIsAbandoned() {
        var machine = UpgradeStateMachine()
        _ = machine.start(probe: 3)
        _ = machine.probeReceived(.pong("probe"), from: 3)
        #expect(machine.probeFailed(3) == .abandonProbe)
        #expect(!machine.holdsPackets, "held packets are released to polling")
    }
}

@Suite struct PollingBatchTests {
    @Test func aPostCarriesAtMostTheCapAndAlwaysAtLeastOne() {
        var outbox = Deque((0..<40).map { EnginePacket.message("2[\"e\",\($0)]") })
        let first = PollingTransport.takeBatch(from: &outbox, maxPackets: 16, maxBytes: 1_000_000, version: .v4)
        #expect(first.count == 16)
        #expect(first.first == .message("2[\"e\",0]"))
        #expect(outbox.count == 24)

        var huge = Deque([EnginePacket.message(String(repeating: "x", count: 5_000)), .message("small")])
        let one = PollingTransport.takeBatch(from: &huge, maxPackets: 16, maxBytes: 100, version: .v4)
        #expect(one.count == 1, "a packet larger than maxPayload still goes, alone")
        #expect(huge.count == 1)
    }

    @Test func aPostStaysUnderMaxPayload() {
        var outbox = Deque((0..<10).map { _ in EnginePacket.message(String(repeating: "y", count: 99)) })
        let batch = PollingTransport.takeBatch(from: &outbox, maxPackets: 16, maxBytes: 350, version: .v4)
        let body = PollingPayload.encode(batch, version: .v4)
        #expect(batch.count == 3)
        #expect(body.utf8.count <= 350)
    }

    @Test(arguments: ["96:0{\"sid\":\"x\"}", "2:40", "18:42[\"welcome\",\"hi\"]2:40"])
    func aV3BodyIsRecognisedOnAV4Handshake(_ body: String) {
        #expect(PollingTransport.looksLikeV3Payload(body))
    }

    @Test(arguments: ["0{\"sid\":\"x\",\"upgrades\":[]}", "4hello", "", "x:1"])
    func aV4BodyIsNot(_ body: String) {
        #expect(!PollingTransport.looksLikeV3Payload(body))
    }
}
