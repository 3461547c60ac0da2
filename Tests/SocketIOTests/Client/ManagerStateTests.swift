import NIOConcurrencyHelpers
@testable import SocketIO
import SocketIOProtocol
import SwitchboardCore
import Testing

/// The manager's state beside its machine, event by event: the network watch, repeated paths,
/// and the timers it keeps.
@Suite struct ManagerStateTests {
    static func state() -> ManagerState {
        ManagerState(decoder: SocketPacketDecoder(version: .v5), machine: ManagerStateMachineTests.machine())
    }

    @Test func theNetworkWatchStartsOnceAndAWatchStartedAfterTheCloseIsRefused() {
        var state = Self.state()
        let first = state.claimNetworkWatch()
        let second = state.claimNetworkWatch()
        #expect(first && !second, "one observation at a time")
        _ = state.close()
        #expect(state.watchingNetwork == false)
        let again = state.claimNetworkWatch()
        #expect(again, "a new session may watch again")
    }

    @Test func aRepeatedPathIsNotActedOn() {
        var state = Self.state()
        let up = NetworkPath(status: .satisfied)
        _ = state.pathChanged(up, rememberUpgrade: false)
        #expect(state.lastPath == up)
        let repeated = state.pathChanged(up, rememberUpgrade: false)
        #expect(repeated == .none, "the same path again changes nothing")
    }

    @Test func aReconnectTimerIsKeptOnlyWhileItsAttemptWaits() {
        var state = Self.state()
        let cancelled = NIOLockedValueBox(0)
        let timer = ManagerConnection.Timer(cancel: { cancelled.withLockedValue { $0 += 1 } })
        // No attempt waits: the timer comes back, to cancel.
        let handedBack = state.keepReconnectTimer(timer, attempt: 1)
        handedBack?.cancel()
        #expect(cancelled.withLockedValue { $0 } == 1)
        #expect(state.reconnectTimer == nil)
        let taken = state.takeReconnectTimer()
        #expect(taken == nil)
    }

    @Test func aSuspensionKeepsTheNewestGraceAndResumeHandsItBack() {
        var state = Self.state()
        let first = ManagerConnection.Timer(cancel: {})
        let second = ManagerConnection.Timer(cancel: {})
        let none = state.keepSuspendTimer(first)
        let replaced = state.keepSuspendTimer(second)
        #expect(none == nil)
        #expect(replaced != nil, "the earlier grace is handed back to cancel")
        let (_, timer) = state.resume(rememberUpgrade: false)
        #expect(timer != nil)
        #expect(state.suspendTimer == nil)
    }
}
