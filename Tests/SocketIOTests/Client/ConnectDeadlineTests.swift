import NIOConcurrencyHelpers
@testable import SocketIO
import SocketIOProtocol
import Testing

/// The deadline of a namespace's CONNECT is cancelled once the connect is settled: left to run,
/// each would hold its task for the whole `connectTimeout`, thousands of them in a client whose
/// connections come and go (`sio bench --churn 120 --clients 300 --churn-kind socket.io`).
@Suite struct ConnectDeadlineTests {
    /// A deadline that records its cancellation.
    final class Recorded: Sendable {
        let cancelled = NIOLockedValueBox(0)
        var timer: ManagerConnection.Timer { ManagerConnection.Timer { self.cancelled.withLockedValue { $0 += 1 } } }
        var count: Int { cancelled.withLockedValue { $0 } }
    }

    /// A socket's state sending its CONNECT on a session.
    static func sending() -> SocketState {
        var state = SocketState(machine: SocketStateMachine(namespace: "/chat", version: .v5, sendBufferLimit: 3), auth: .none)
        _ = state.machine.connect(engineOpen: false)
        _ = state.machine.engineOpened(version: .v5, sid: "e1")
        return state
    }

    @Test func theAnsweredConnectsDeadlineIsHandedBackToCancel() {
        var state = Self.sending()
        let deadline = Recorded()
        let attempt = state.machine.connectSent()
        #expect(state.keepConnectDeadline(deadline.timer, attempt: attempt) == nil, "nothing to replace")
        _ = state.machine.received(SocketPacket(kind: .connect, namespace: "/chat", data: ["sid": "s"]))
        state.settleConnect().deadline?.cancel()
        #expect(deadline.count == 1)
        #expect(state.settleConnect().deadline == nil, "handed back once")
    }

    /// A CONNECT that ended unanswered with no `connect()` caller to settle it (the app's
    /// `disconnect()` after `startConnecting()`) hands its deadline back too, but not while it
    /// is still the one awaited.
    @Test func anEndedConnectsDeadlineIsHandedBackWithoutCallers() {
        var state = Self.sending()
        let deadline = Recorded()
        let attempt = state.machine.connectSent()
        _ = state.keepConnectDeadline(deadline.timer, attempt: attempt)
        #expect(state.takeEndedConnectDeadline() == nil, "still awaited")
        _ = state.machine.disconnect()
        state.takeEndedConnectDeadline()?.cancel()
        #expect(deadline.count == 1)
        #expect(state.takeEndedConnectDeadline() == nil, "handed back once")
    }

    @Test func aNewerConnectReplacesTheDeadlineAndASettledOnesIsCancelledAtOnce() {
        var state = Self.sending()
        let first = Recorded()
        let second = Recorded()
        let late = Recorded()
        let one = state.machine.connectSent()
        _ = state.keepConnectDeadline(first.timer, attempt: one)
        _ = state.machine.engineOpened(version: .v5, sid: "e2")
        let two = state.machine.connectSent()
        state.keepConnectDeadline(second.timer, attempt: two)?.cancel()
        #expect(first.count == 1, "the first CONNECT's deadline goes when the second's is kept")

        // The answer came between sending the CONNECT and keeping its deadline.
        _ = state.machine.received(SocketPacket(kind: .connect, namespace: "/chat", data: ["sid": "s"]))
        state.settleConnect().deadline?.cancel()
        #expect(second.count == 1)
        state.keepConnectDeadline(late.timer, attempt: two)?.cancel()
        #expect(late.count == 1, "a deadline for a settled CONNECT is not kept")
    }
}
