import Testing
@testable import Switchboard

/// Every (state, input) pair of ``ConnectionStateMachine``: what it returns or throws, and the
/// state after. A refused input leaves the state unchanged.
@Suite("Connection state machine")
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine
    typealias Attempt = Machine.Attempt

    /// The starting points: every public state, plus `created` with its first open in flight.
    enum Start: String, CaseIterable, CustomStringConvertible {
        case created, opening, connected, disconnected, reconnecting, released
        var description: String { rawValue }

        /// A machine driven into this state through its inputs only.
        func machine() throws -> Machine {
            var machine = Machine()
            switch self {
            case .created:
                break
            case .opening:
                _ = try machine.connect()
            case .connected:
                _ = try machine.connect()
                _ = machine.openSucceeded(Attempt(number: 1))
            case .disconnected:
                _ = try machine.connect()
                _ = machine.openSucceeded(Attempt(number: 1))
                _ = machine.transportClosed(Attempt(number: 1))
            case .reconnecting:
                _ = try machine.connect()
                _ = machine.openSucceeded(Attempt(number: 1))
                _ = machine.transportClosed(Attempt(number: 1))
                _ = try machine.connect()
            case .released:
                _ = try machine.disconnect()
                try machine.release()
            }
            return machine
        }
    }

    enum Input: String, CaseIterable, CustomStringConvertible {
        case connect, disconnect, release, send, request, subscribe
        case openSucceededCurrent, openSucceededStale, openFailedCurrent, openFailedStale
        case transportClosedCurrent, transportClosedStale
        var description: String { rawValue }
    }

    enum Outcome: Hashable, CustomStringConvertible {
        case connect(Machine.ConnectAction)
        case disconnect(Machine.DisconnectAction)
        case released
        case command(Machine.CommandAction)
        case subscribed
        case result(Machine.OpenResultAction)
        case refused(ConnectionError)
        var description: String { "\(self)" }
    }

    static let one = Attempt(number: 1)
    static let two = Attempt(number: 2)
    /// An attempt that never existed (a late report from an old transport).
    static let stranger = Attempt(number: 99)

    /// The attempt a "current" transport report names: the live one, else the last one.
    static func current(_ start: Start) -> Attempt {
        start == .reconnecting ? two : one
    }

    static func apply(_ input: Input, to machine: inout Machine, start: Start) -> Outcome {
        do {
            switch input {
            case .connect: return .connect(try machine.connect())
            case .disconnect: return .disconnect(try machine.disconnect())
            case .release:
                try machine.release()
                return .released
            case .send: return .command(try machine.command(.send))
            case .request: return .command(try machine.command(.request))
            case .subscribe:
                try machine.subscribe()
                return .subscribed
            case .openSucceededCurrent: return .result(machine.openSucceeded(current(start)))
            case .openSucceededStale: return .result(machine.openSucceeded(stranger))
            case .openFailedCurrent: return .result(machine.openFailed(current(start)))
            case .openFailedStale: return .result(machine.openFailed(stranger))
            case .transportClosedCurrent: return .result(machine.transportClosed(current(start)))
            case .transportClosedStale: return .result(machine.transportClosed(stranger))
            }
        } catch {
            return .refused(error)
        }
    }

    typealias Expectation = (Outcome, Machine.State)

    /// The whole table, written out by hand.
    static let expected: [Start: [Input: Expectation]] = {
        let created = Machine.State.created(opening: nil)
        let opening = Machine.State.created(opening: one)
        let stale = Outcome.result(.stale)
        return [
            .created: [
                .connect: (.connect(.open(one)), opening),
                .disconnect: (.disconnect(.none), .disconnected),
                .release: (.refused(.illegalTransition(from: .created, to: .released)), created),
                .send: (.command(.enqueue), created),
                .request: (.command(.enqueue), created),
                .subscribe: (.subscribed, created),
                .openSucceededCurrent: (stale, created),
                .openSucceededStale: (stale, created),
                .openFailedCurrent: (stale, created),
                .openFailedStale: (stale, created),
                .transportClosedCurrent: (stale, created),
                .transportClosedStale: (stale, created),
            ],
            .opening: [
                .connect: (.connect(.join(one)), opening),
                .disconnect: (.disconnect(.close(abandoning: one)), .disconnected),
                .release: (.refused(.illegalTransition(from: .created, to: .released)), opening),
                .send: (.command(.enqueue), opening),
                .request: (.command(.enqueue), opening),
                .subscribe: (.subscribed, opening),
                .openSucceededCurrent: (.result(.moved), .connected(one)),
                .openSucceededStale: (stale, opening),
                .openFailedCurrent: (.result(.moved), .disconnected),
                .openFailedStale: (stale, opening),
                .transportClosedCurrent: (stale, opening),
                .transportClosedStale: (stale, opening),
            ],
            .connected: [
                .connect: (.refused(.notAllowed(operation: .connect, state: .connected)), .connected(one)),
                .disconnect: (.disconnect(.close(abandoning: nil)), .disconnected),
                .release: (.refused(.illegalTransition(from: .connected, to: .released)), .connected(one)),
                .send: (.command(.execute), .connected(one)),
                .request: (.command(.execute), .connected(one)),
                .subscribe: (.subscribed, .connected(one)),
                .openSucceededCurrent: (stale, .connected(one)),
                .openSucceededStale: (stale, .connected(one)),
                .openFailedCurrent: (stale, .connected(one)),
                .openFailedStale: (stale, .connected(one)),
                .transportClosedCurrent: (.result(.moved), .disconnected),
                .transportClosedStale: (stale, .connected(one)),
            ],
            .disconnected: [
                .connect: (.connect(.open(two)), .reconnecting(two)),
                .disconnect: (.disconnect(.none), .disconnected),
                .release: (.released, .released),
                .send: (.command(.enqueue), .disconnected),
                .request: (.command(.enqueue), .disconnected),
                .subscribe: (.subscribed, .disconnected),
                .openSucceededCurrent: (stale, .disconnected),
                .openSucceededStale: (stale, .disconnected),
                .openFailedCurrent: (stale, .disconnected),
                .openFailedStale: (stale, .disconnected),
                .transportClosedCurrent: (stale, .disconnected),
                .transportClosedStale: (stale, .disconnected),
            ],
            .reconnecting: [
                .connect: (.refused(.notAllowed(operation: .connect, state: .reconnecting)), .reconnecting(two)),
                .disconnect: (.disconnect(.close(abandoning: two)), .disconnected),
                .release: (.refused(.illegalTransition(from: .reconnecting, to: .released)), .reconnecting(two)),
                .send: (.command(.enqueue), .reconnecting(two)),
                .request: (.command(.enqueue), .reconnecting(two)),
                .subscribe: (.subscribed, .reconnecting(two)),
                .openSucceededCurrent: (.result(.moved), .connected(two)),
                .openSucceededStale: (stale, .reconnecting(two)),
                .openFailedCurrent: (.result(.moved), .disconnected),
                .openFailedStale: (stale, .reconnecting(two)),
                .transportClosedCurrent: (stale, .reconnecting(two)),
                .transportClosedStale: (stale, .reconnecting(two)),
            ],
            .released: [
                .connect: (.refused(.released), .released),
                .disconnect: (.refused(.released), .released),
                .release: (.refused(.released), .released),
                .send: (.refused(.released), .released),
                .request: (.refused(.released), .released),
                .subscribe: (.refused(.released), .released),
                .openSucceededCurrent: (stale, .released),
                .openSucceededStale: (stale, .released),
                .openFailedCurrent: (stale, .released),
                .openFailedStale: (stale, .released),
                .transportClosedCurrent: (stale, .released),
                .transportClosedStale: (stale, .released),
            ],
        ]
    }()

    @Test(arguments: Start.allCases, Input.allCases)
    func everyStateAndInput(_ start: Start, _ input: Input) throws {
        var machine = try start.machine()
        let before = machine.state
        let expectation = try #require(Self.expected[start]?[input], "the table covers \(start) × \(input)")
        let outcome = Self.apply(input, to: &machine, start: start)
        #expect(outcome == expectation.0)
        #expect(machine.state == expectation.1)
        if case .refused = outcome {
            #expect(machine.state == before, "a refused input leaves the state unchanged")
        }
        // Whatever happened, the public state only ever moved along the table.
        let from = Machine.publicState(of: before), to = machine.connectionState
        #expect(from == to || from.canMove(to: to), "\(from) → \(to) is in the table")
    }

    @Test func theTableCoversEveryPair() {
        #expect(Self.expected.count == Start.allCases.count)
        for start in Start.allCases {
            #expect(Self.expected[start]?.count == Input.allCases.count, "\(start)")
        }
    }

    @Test func illegalTransitionErrorsNameBothStates() {
        let error = ConnectionError.illegalTransition(from: .connected, to: .released)
        #expect(error.description.contains("connected"))
        #expect(error.description.contains("released"))
    }

    @Test func attemptsAreNeverReused() throws {
        var machine = Machine()
        var seen: Set<Attempt> = []
        for _ in 0..<5 {
            guard case .open(let attempt) = try machine.connect() else {
                Issue.record("expected an open")
                return
            }
            #expect(seen.insert(attempt).inserted)
            _ = machine.openFailed(attempt)
        }
        #expect(machine.state == .disconnected)
    }
}
