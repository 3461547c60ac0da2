@testable import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// The manager's session lifecycle, input by input: which session is current, the v3 retry,
/// refusals, losses and the app's close.
@Suite("Manager state machine")
struct ManagerStateMachineTests {
    static func machine(version: EngineIOVersion = .v4, retriesAsV3: Bool = false) -> ManagerStateMachine {
        ManagerStateMachine(
            version: version, retriesAsV3: retriesAsV3,
            reconnection: ReconnectionStateMachine(
                enabled: true, maxAttempts: nil,
                backoff: Backoff(minimum: .seconds(1), maximum: .seconds(5), jitter: 0.5)
            )
        )
    }

    @Test func theFirstSocketStartsASessionTheNextWaitOrJoin() {
        let machine = Box(Self.machine())
        #expect(!machine.value.hasSession)
        #expect(machine.value.open(rememberUpgrade: false) == .start(session: 1, version: .v4, websocketOnly: false))
        #expect(machine.value.hasSession && !machine.value.isOpen)
        #expect(machine.value.open(rememberUpgrade: false) == .wait, "a second socket waits for the opening session")
        #expect(machine.value.opened(1, sid: "abc", transport: .polling) == .announce(.v5, sid: "abc", reconnected: nil))
        #expect(machine.value.isOpen)
        #expect(machine.value.open(rememberUpgrade: false) == .joinOpen(.v5, sid: "abc"))
        #expect(machine.value.opened(1, sid: "abc", transport: .polling) == nil, "a session opens once")
    }

    @Test func reportsOfAnOlderSessionAreIgnored() {
        let machine = Box(Self.machine())
        _ = machine.value.open(rememberUpgrade: false)
        #expect(machine.value.close() == .close(wasOpen: false))
        #expect(machine.value.open(rememberUpgrade: false) == .start(session: 2, version: .v4, websocketOnly: false))
        #expect(!machine.value.isCurrent(1) && machine.value.isCurrent(2))
        #expect(machine.value.opened(1, sid: "old", transport: .polling) == nil)
        #expect(machine.value.closed(1, reason: .transportClose) == nil)
        #expect(machine.value.upgraded(1) == false)
        #expect(machine.value.opened(2, sid: "new", transport: .polling) == .announce(.v5, sid: "new", reconnected: nil))
    }

    @Test func aRefusedV4RetriesAsV3OnlyUnderAutoAndBeforeOpening() {
        let refusal = EngineCloseReason.unsupportedVersion(tried: .v4, serverSpeaks: .v3, detail: "EIO=4")
        let auto = Box(Self.machine(retriesAsV3: true))
        _ = auto.value.open(rememberUpgrade: false)
        #expect(auto.value.closed(1, reason: refusal) == .retryAsV3(session: 2))
        #expect(auto.value.version == .v3 && auto.value.isCurrent(2))
        #expect(auto.value.opened(2, sid: "v3", transport: .polling) == .announce(.v4, sid: "v3", reconnected: nil))

        let pinned = Box(Self.machine(retriesAsV3: false))
        _ = pinned.value.open(rememberUpgrade: false)
        #expect(pinned.value.closed(1, reason: refusal) == .fail(.versionMismatch(client: .v4, server: .v3)))
        #expect(!pinned.value.hasSession)

        // A v3 session refused (the server speaks only v4) does not loop.
        let v3 = Box(Self.machine(version: .v3, retriesAsV3: true))
        _ = v3.value.open(rememberUpgrade: false)
        let v4Only = EngineCloseReason.unsupportedVersion(tried: .v3, serverSpeaks: nil, detail: "EIO=3")
        #expect(v3.value.closed(1, reason: v4Only) == .fail(.versionMismatch(client: .v3, server: .v4)))
    }

    @Test func aRefusedHandshakeFailsAndStopsReconnecting() {
        let machine = Box(Self.machine())
        _ = machine.value.open(rememberUpgrade: false)
        _ = machine.value.opened(1, sid: "a", transport: .polling)
        #expect(machine.value.closed(1, reason: .transportClose) == .lost(wasOpen: true))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .schedule(delay: .seconds(1), attempt: 1))
        #expect(machine.value.open(rememberUpgrade: false) == .wait, "the delay's attempt opens the session")
        #expect(machine.value.delayElapsed(attempt: 1, rememberUpgrade: false) == .start(session: 2, version: .v4, websocketOnly: false))
        #expect(machine.value.closed(2, reason: .handshakeRefused("\"banned\"")) == .fail(.connectError(message: "banned", data: nil)))
        #expect(machine.value.reconnection.state == .idle, "a refusal is final")
        #expect(machine.value.delayElapsed(attempt: 2, rememberUpgrade: false) == nil)
    }

    @Test func aLostSessionReconnectsAndTheReconnectNamesTheAttempt() {
        let machine = Box(Self.machine())
        _ = machine.value.open(rememberUpgrade: false)
        #expect(machine.value.closed(1, reason: .transportError("refused")) == .lost(wasOpen: false))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .schedule(delay: .seconds(1), attempt: 1))
        #expect(machine.value.delayElapsed(attempt: 1, rememberUpgrade: false) == .start(session: 2, version: .v4, websocketOnly: false))
        #expect(machine.value.delayElapsed(attempt: 1, rememberUpgrade: false) == nil, "an attempt starts once")
        #expect(machine.value.closed(2, reason: .transportError("refused")) == .lost(wasOpen: false))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0)
                == .retry(failedAttempt: 1, delay: .seconds(2), attempt: 2))
        #expect(machine.value.delayElapsed(attempt: 2, rememberUpgrade: false) == .start(session: 3, version: .v4, websocketOnly: false))
        #expect(machine.value.opened(3, sid: "back", transport: .polling) == .announce(.v5, sid: "back", reconnected: 2))
    }

    @Test func theAppsCloseEndsAnyStateAndTheLoop() {
        let idle = Box(Self.machine())
        #expect(idle.value.close() == ManagerStateMachine.CloseAction.none)

        let open = Box(Self.machine())
        _ = open.value.open(rememberUpgrade: false)
        _ = open.value.opened(1, sid: "a", transport: .websocket)
        #expect(open.value.close() == .close(wasOpen: true))
        #expect(!open.value.hasSession)
        #expect(open.value.closed(1, reason: .forcedClose) == nil, "the closed session's own report is stale")

        let waiting = Box(Self.machine())
        _ = waiting.value.open(rememberUpgrade: false)
        _ = waiting.value.closed(1, reason: .pingTimeout)
        _ = waiting.value.connectionLost(wantsConnection: true, random: 0)
        #expect(waiting.value.close() == .none)
        #expect(waiting.value.delayElapsed(attempt: 1, rememberUpgrade: false) == nil, "the stopped loop's timer does nothing")
        #expect(waiting.value.open(rememberUpgrade: false) == .start(session: 2, version: .v4, websocketOnly: false))
    }

    @Test func rememberUpgradeGoesStraightToWebSocketAfterAnUpgradedSession() {
        let machine = Box(Self.machine())
        _ = machine.value.open(rememberUpgrade: true)
        _ = machine.value.opened(1, sid: "a", transport: .polling)
        #expect(machine.value.upgraded(1) == true)
        _ = machine.value.closed(1, reason: .transportClose)
        #expect(machine.value.open(rememberUpgrade: true) == .start(session: 2, version: .v4, websocketOnly: true))
        #expect(machine.value.opened(2, sid: "b", transport: .websocket) != nil)
        _ = machine.value.closed(2, reason: .transportClose)
        #expect(machine.value.open(rememberUpgrade: false) == .start(session: 3, version: .v4, websocketOnly: false),
                "without rememberUpgrade it probes again")
        _ = machine.value.opened(3, sid: "c", transport: .polling)
        _ = machine.value.closed(3, reason: .transportClose)
        #expect(machine.value.open(rememberUpgrade: true) == .start(session: 4, version: .v4, websocketOnly: false),
                "a session that stayed on polling is not remembered as upgraded")
    }

    @Test("the session's transport is what the manager heard: WebSocket only once it heard of the upgrade")
    func sessionTransportFollowsTheReports() {
        let machine = Box(Self.machine())
        _ = machine.value.open(rememberUpgrade: true)
        #expect(machine.value.sessionTransport == nil, "nothing before the handshake")
        _ = machine.value.opened(1, sid: "a", transport: .polling)
        #expect(machine.value.sessionTransport == .polling)
        let current = machine.value.upgraded(1)
        #expect(current)
        #expect(machine.value.sessionTransport == .websocket)
        #expect(machine.value.lastSessionUpgraded, "what the transport shows is what rememberUpgrade remembers")
        _ = machine.value.closed(1, reason: .transportClose)
        _ = machine.value.open(rememberUpgrade: true)
        #expect(machine.value.sessionTransport == nil, "a new session starts without one")
    }
}

/// The network path and the app's lifecycle, input by input.
@Suite("Manager state machine: network and lifecycle")
struct ManagerNetworkLifecycleTests {
    @Test func withoutAPathNoAttemptIsSpentAndItsReturnStartsOneAtOnce() {
        let machine = Box(ManagerStateMachineTests.machine())
        _ = machine.value.open(rememberUpgrade: false)
        _ = machine.value.opened(1, sid: "a", transport: .polling)
        #expect(machine.value.networkChanged(available: false, rememberUpgrade: false) == .none)
        _ = machine.value.closed(1, reason: .transportClose)
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .waitForNetwork(failedAttempt: nil))
        #expect(machine.value.open(rememberUpgrade: false) == .wait, "a socket connecting meanwhile waits too")
        #expect(machine.value.networkChanged(available: true, rememberUpgrade: false)
                == .attemptNow(attempt: 1, .start(session: 2, version: .v4, websocketOnly: false)))
        // The attempt fails while the path is gone again: it waits, with no delay and no count.
        _ = machine.value.networkChanged(available: false, rememberUpgrade: false)
        _ = machine.value.closed(2, reason: .transportError("unreachable"))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .waitForNetwork(failedAttempt: 1))
        #expect(machine.value.networkChanged(available: true, rememberUpgrade: false)
                == .attemptNow(attempt: 2, .start(session: 3, version: .v4, websocketOnly: false)))
        #expect(machine.value.opened(3, sid: "b", transport: .polling) == .announce(.v5, sid: "b", reconnected: 2))
    }

    @Test func aDelayThatEndsWithoutAPathWaitsForItAndAPathCutsADelayShort() {
        let machine = Box(ManagerStateMachineTests.machine())
        _ = machine.value.open(rememberUpgrade: false)
        _ = machine.value.closed(1, reason: .transportError("refused"))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .schedule(delay: .seconds(1), attempt: 1))
        _ = machine.value.networkChanged(available: false, rememberUpgrade: false)
        #expect(machine.value.delayElapsed(attempt: 1, rememberUpgrade: false) == nil, "no path: the attempt waits")
        #expect(machine.value.networkChanged(available: true, rememberUpgrade: false)
                == .attemptNow(attempt: 1, .start(session: 2, version: .v4, websocketOnly: false)))
        // A path change during a delay starts its attempt without waiting the delay out.
        _ = machine.value.closed(2, reason: .transportError("refused"))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0)
                == .retry(failedAttempt: 1, delay: .seconds(2), attempt: 2))
        #expect(machine.value.networkChanged(available: true, rememberUpgrade: false)
                == .attemptNow(attempt: 2, .start(session: 3, version: .v4, websocketOnly: false)))
        #expect(machine.value.delayElapsed(attempt: 2, rememberUpgrade: false) == nil, "the delay's own timer is stale")
    }

    @Test func aPathChangeChecksAnOpenSessionsRouteAndAMovedRouteReconnectsAtOnce() {
        let machine = Box(ManagerStateMachineTests.machine())
        _ = machine.value.open(rememberUpgrade: false)
        #expect(machine.value.networkChanged(available: true, rememberUpgrade: false) == .none, "opening: nothing to check")
        _ = machine.value.opened(1, sid: "a", transport: .websocket)
        #expect(machine.value.networkChanged(available: true, rememberUpgrade: false) == .checkRoute(session: 1))
        #expect(machine.value.routeChanged(2) == false, "not the current session")
        #expect(machine.value.routeChanged(1) == true)
        _ = machine.value.closed(1, reason: .transportError("the network path changed"))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .schedule(delay: .zero, attempt: 1))
        // Only that once: the next loss waits its delay again.
        #expect(machine.value.delayElapsed(attempt: 1, rememberUpgrade: false) == .start(session: 2, version: .v4, websocketOnly: false))
        _ = machine.value.closed(2, reason: .transportError("refused"))
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0)
                == .retry(failedAttempt: 1, delay: .seconds(2), attempt: 2))
    }

    @Test func suspendClosesAfterTheGraceUnlessResumedAndResumeReopens() {
        let machine = Box(ManagerStateMachineTests.machine())
        _ = machine.value.open(rememberUpgrade: false)
        _ = machine.value.opened(1, sid: "a", transport: .websocket)
        let first = machine.value.suspend()
        #expect(machine.value.resume(wantsConnection: true, rememberUpgrade: false) == nil, "within the grace: kept")
        #expect(machine.value.graceElapsed(first) == nil, "the resumed suspension's timer is stale")
        #expect(machine.value.isOpen)

        let second = machine.value.suspend()
        #expect(machine.value.graceElapsed(second) == .close(wasOpen: true))
        #expect(machine.value.lifecycle == .suspended && !machine.value.hasSession)
        #expect(machine.value.open(rememberUpgrade: false) == .wait, "no session while suspended")
        #expect(machine.value.connectionLost(wantsConnection: true, random: 0) == .none, "no reconnection either")
        #expect(machine.value.networkChanged(available: true, rememberUpgrade: false) == .none)
        #expect(machine.value.resume(wantsConnection: true, rememberUpgrade: false)
                == .start(session: 2, version: .v4, websocketOnly: false))
        #expect(machine.value.lifecycle == .active)
    }

    @Test func resumingWithNobodyWantingAConnectionOpensNothing() {
        let machine = Box(ManagerStateMachineTests.machine())
        let token = machine.value.suspend()
        #expect(machine.value.graceElapsed(token) == ManagerStateMachine.CloseAction.none)
        #expect(machine.value.resume(wantsConnection: false, rememberUpgrade: false) == nil)
        #expect(machine.value.open(rememberUpgrade: false) == .start(session: 1, version: .v4, websocketOnly: false))
    }
}
