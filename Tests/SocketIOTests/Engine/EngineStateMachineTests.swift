@testable import SocketIO
import SocketIOProtocol
import Testing

@Suite struct EngineStateMachineTests {
    static let openV4 = EnginePacket.open(#"{"sid":"abc","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":1000}"#)
    static let openV3 = EnginePacket.open(#"{"sid":"abc","upgrades":[],"pingInterval":300,"pingTimeout":200}"#)
    static let handshake = EngineHandshake(sid: "abc", upgrades: [], pingInterval: 300, pingTimeout: 200, maxPayload: 1000)

    @Test func v4HandshakeArmsTheDeadlineAndEveryPingReArmsIt() {
        var machine = EngineStateMachine(version: .v4)
        #expect(machine.start() == .openTransport(timerGeneration: 1))
        #expect(machine.start() == .none, "starting twice does nothing")
        #expect(machine.received(Self.openV4) == .opened(Self.handshake, armTimerMilliseconds: 500, timerGeneration: 2))
        #expect(machine.received(.ping("")) == .sendPong("", armTimerMilliseconds: 500, timerGeneration: 3))
        #expect(machine.timerFired(generation: 2) == .none, "a stale timer is ignored")
        #expect(machine.received(.message("2[\"x\"]")) == .deliver(.message("2[\"x\"]")))
        #expect(machine.timerFired(generation: 3) == .close(.pingTimeout))
        #expect(machine.state == .closed)
        #expect(machine.received(.message("late")) == .none, "nothing is delivered after closing")
    }

    @Test func v4IgnoresPongsAndOtherControlPacketsWhileOpen() {
        var machine = EngineStateMachine(version: .v4)
        _ = machine.start()
        _ = machine.received(Self.openV4)
        #expect(machine.received(.pong("")) == .none)
        #expect(machine.received(.noop) == .none)
        #expect(machine.received(.upgrade) == .none)
        #expect(machine.isOpen)
    }

    @Test func v3ClientPingsAndClosesWhenThePongIsLate() {
        var machine = EngineStateMachine(version: .v3)
        _ = machine.start()
        #expect(machine.received(Self.openV3) == .opened(
            EngineHandshake(sid: "abc", upgrades: [], pingInterval: 300, pingTimeout: 200, maxPayload: nil),
            armTimerMilliseconds: 300, timerGeneration: 2))
        #expect(machine.received(.ping("")) == .none, "a server ping is the wrong direction on v3")
        #expect(machine.timerFired(generation: 2) == .sendPing(armTimerMilliseconds: 200, timerGeneration: 3))
        #expect(machine.received(.pong("")) == .armTimer(milliseconds: 300, timerGeneration: 4))
        #expect(machine.timerFired(generation: 4) == .sendPing(armTimerMilliseconds: 200, timerGeneration: 5))
        #expect(machine.timerFired(generation: 5) == .close(.pingTimeout))
    }

    @Test func openTimeoutFailsTheSession() {
        var machine = EngineStateMachine(version: .v4)
        guard case .openTransport(let generation) = machine.start() else {
            Issue.record("expected openTransport")
            return
        }
        #expect(machine.timerFired(generation: generation) == .close(.transportError("timeout")))
        #expect(machine.received(Self.openV4) == .none)
    }

    @Test(arguments: [
        EnginePacket.message("40"),
        .open("not json"),
        .open(#"{"upgrades":[],"pingInterval":1,"pingTimeout":1}"#),
        .open(#"{"sid":"a","pingTimeout":1}"#),
    ])
    func aBadHandshakeIsAParseError(_ first: EnginePacket) {
        var machine = EngineStateMachine(version: .v4)
        _ = machine.start()
        guard case .close(.parseError, sendClosePacket: false) = machine.received(first) else {
            Issue.record("expected a parse-error close for \(first)")
            return
        }
        #expect(machine.state == .closed)
    }

    @Test func serverCloseAndTransportEndAreReportedOnce() {
        var machine = EngineStateMachine(version: .v4)
        _ = machine.start()
        _ = machine.received(Self.openV4)
        #expect(machine.received(.close) == .close(.transportClose, sendClosePacket: false))
        #expect(machine.transportEnded(.transportClose) == .none)

        var other = EngineStateMachine(version: .v4)
        _ = other.start()
        _ = other.received(Self.openV4)
        #expect(other.transportEnded(.transportError("reset")) == .close(.transportError("reset"), sendClosePacket: false))
        #expect(other.close() == .none)
    }

    @Test func appCloseSendsClosePacketOnlyWhenOpen() {
        var open = EngineStateMachine(version: .v4)
        _ = open.start()
        _ = open.received(Self.openV4)
        #expect(open.close() == .close(.forcedClose, sendClosePacket: true))

        var opening = EngineStateMachine(version: .v4)
        _ = opening.start()
        #expect(opening.close() == .close(.forcedClose, sendClosePacket: false))

        var idle = EngineStateMachine(version: .v4)
        #expect(idle.close() == .none)
        #expect(idle.start() == .none, "a closed session does not reopen")
    }
}
