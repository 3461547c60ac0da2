import Testing
@testable import Switchboard

/// The driver's rules, event by event, without sockets.
@Suite("WebSocket driver state machine")
struct WebSocketDriverStateMachineTests {
    @Test func opensOnceAndIgnoresStaleConnections() {
        var machine = WebSocketDriverStateMachine()
        #expect(machine.request() == .refuse)
        #expect(!machine.canSend)
        #expect(machine.open() == .connect(generation: 1))
        #expect(machine.open() == .refuse)
        #expect(machine.channelOpened(generation: 0) == .ignore)
        #expect(machine.channelOpened(generation: 1) == .resumeOpen)
        #expect(machine.channelOpened(generation: 1) == .ignore)
        #expect(machine.state == .open(generation: 1))
        #expect(machine.open() == .refuse)
        #expect(machine.accepts(messageFrom: 1))
        #expect(!machine.accepts(messageFrom: 0))
    }

    @Test func aFailedOpenLeavesItIdleAndOpenableAgain() {
        var machine = WebSocketDriverStateMachine()
        #expect(machine.open() == .connect(generation: 1))
        #expect(machine.channelEnded(generation: 1) == .failOpen)
        #expect(machine.state == .idle)
        #expect(machine.channelEnded(generation: 1) == .ignore)
        #expect(machine.open() == .connect(generation: 2))
        #expect(machine.channelOpened(generation: 1) == .ignore)
        #expect(machine.channelOpened(generation: 2) == .resumeOpen)
    }

    @Test func theServerClosingReportsOnceAndFailsWhatIsInFlight() {
        var machine = WebSocketDriverStateMachine()
        _ = machine.open()
        _ = machine.channelOpened(generation: 1)
        #expect(machine.request() == .send(id: 0))
        #expect(machine.request() == .send(id: 1))
        #expect(machine.request() == .send(id: 2))
        let settled = machine.settleRequest(id: 1)
        let settledTwice = machine.settleRequest(id: 1)
        #expect(settled && !settledTwice)
        #expect(machine.channelEnded(generation: 1) == .reportClosed(failRequests: [0, 2]))
        #expect(machine.channelEnded(generation: 1) == .ignore)
        #expect(machine.pendingRequests.isEmpty)
        #expect(!machine.accepts(messageFrom: 1))
        // Ids stay unique across connections: a late reply cannot answer a newer request.
        _ = machine.open()
        _ = machine.channelOpened(generation: 2)
        #expect(machine.request() == .send(id: 3))
        let stale = machine.settleRequest(id: 0)
        #expect(!stale)
    }

    @Test func theAppClosingFailsWhatIsInFlightAndReportsNothingLater() {
        var machine = WebSocketDriverStateMachine()
        #expect(machine.close() == .none)
        _ = machine.open()
        #expect(machine.close() == .cancelOpen)
        #expect(machine.channelOpened(generation: 1) == .ignore)
        #expect(machine.channelEnded(generation: 1) == .ignore)
        _ = machine.open()
        _ = machine.channelOpened(generation: 2)
        _ = machine.request()
        #expect(machine.close() == .close(failRequests: [0]))
        #expect(machine.channelEnded(generation: 2) == .ignore)
        #expect(machine.close() == .none)
    }

    @Test func cancellingTheOpenActsOnlyWhileOpening() {
        var machine = WebSocketDriverStateMachine()
        _ = machine.open()
        let wrongGeneration = machine.cancelOpening(generation: 0)
        let cancelled = machine.cancelOpening(generation: 1)
        #expect(!wrongGeneration && cancelled)
        #expect(machine.state == .idle)
        _ = machine.open()
        _ = machine.channelOpened(generation: 2)
        let afterOpen = machine.cancelOpening(generation: 2)
        #expect(!afterOpen)
        #expect(machine.state == .open(generation: 2))
    }
}
