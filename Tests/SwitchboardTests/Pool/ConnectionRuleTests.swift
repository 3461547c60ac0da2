import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import Switchboard
import SwitchboardTesting

/// The keeper's rules on their own: snapshots in, actions out.
@Suite("Keeper rules")
struct ConnectionRuleTests {
    static let connection = makeConnection(InMemoryServer())

    static func snapshot(
        _ state: ConnectionState, occupied: Bool, idle: Duration? = nil, app: AppLifecycle = .active
    ) -> ConnectionSnapshot {
        ConnectionSnapshot(
            connection: connection,
            configuration: connection.configuration,
            state: state,
            leaseCount: occupied ? 1 : 0,
            idleDuration: occupied ? nil : (idle ?? .zero),
            appLifecycle: app
        )
    }

    /// The suspended app's rule: only occupied connections, only past the grace.
    @Test(arguments: ConnectionState.allCases)
    func aSuspendedAppSuspendsOccupiedConnectionsAndKeepsThemDown(_ state: ConnectionState) {
        let rule = SuspendedAppRule()
        #expect(rule.action(for: Self.snapshot(state, occupied: true, app: .active)) == nil)
        #expect(rule.action(for: Self.snapshot(state, occupied: true, app: .suspending)) == nil)
        #expect(rule.action(for: Self.snapshot(state, occupied: false, app: .suspended)) == nil, "unleased: the other rules close it")
        let expected = [.connected, .reconnecting].contains(state) ? "suspend" : "keep"
        #expect(rule.action(for: Self.snapshot(state, occupied: true, app: .suspended))?.name == expected)
    }

    /// The default chain, for every state, occupied or not.
    @Test(arguments: ConnectionState.allCases, [true, false])
    func theDefaultChain(_ state: ConnectionState, occupied: Bool) {
        let expected: String? = switch (state, occupied) {
        case (.created, true), (.disconnected, true): "connect"
        case (.connected, true), (.reconnecting, true), (.released, true): nil
        case (.created, false), (.connected, false): "disconnect"
        case (.disconnected, false): "release"
        case (.reconnecting, false), (.released, false): nil
        }
        let keeper = ConnectionKeeper(pool: ConnectionPool(factory: CountingFactory()))
        #expect(keeper.action(for: Self.snapshot(state, occupied: occupied))?.name == expected, "\(state), occupied: \(occupied)")
    }

    @Test(arguments: ConnectionState.allCases)
    func eachDefaultRuleAppliesOnlyToItsCase(_ state: ConnectionState) {
        let occupied = Self.snapshot(state, occupied: true)
        let free = Self.snapshot(state, occupied: false)
        #expect(ReconnectOccupiedRule().action(for: free) == nil)
        #expect(ReconnectOccupiedRule().action(for: occupied)?.name == ([.created, .disconnected].contains(state) ? "connect" : nil))
        #expect(DisconnectUnoccupiedRule().action(for: occupied) == nil)
        #expect(DisconnectUnoccupiedRule().action(for: free)?.name == ([.created, .connected].contains(state) ? "disconnect" : nil))
        #expect(ReleaseUnoccupiedRule().action(for: occupied) == nil)
        #expect(ReleaseUnoccupiedRule().action(for: free)?.name == (state == .disconnected ? "release" : nil))
    }

    @Test func idleGraceKeepsAnUnleasedConnectionUntilTheGraceRunsOut() {
        let rule = IdleGraceRule(grace: .seconds(10))
        #expect(rule.action(for: Self.snapshot(.connected, occupied: true)) == nil, "leased: not its business")
        #expect(rule.action(for: Self.snapshot(.connected, occupied: false, idle: .seconds(9)))?.name == "keep")
        #expect(rule.action(for: Self.snapshot(.disconnected, occupied: false, idle: .zero))?.name == "keep")
        #expect(rule.action(for: Self.snapshot(.connected, occupied: false, idle: .seconds(10))) == nil)
    }

    /// Records which rules were asked.
    struct Recording: ConnectionRule {
        let name: String
        let answer: KeeperAction?
        let log: NIOLockedValueBox<[String]>

        func action(for snapshot: ConnectionSnapshot) -> KeeperAction? {
            log.withLockedValue { $0.append(name) }
            return answer
        }
    }

    @Test func theFirstRuleThatAppliesIsTheOnlyOneAsked() {
        let log = NIOLockedValueBox<[String]>([])
        let keeper = ConnectionKeeper(pool: ConnectionPool(factory: CountingFactory()), rules: [
            Recording(name: "one", answer: nil, log: log),
            Recording(name: "two", answer: .keep, log: log),
            Recording(name: "three", answer: .disconnect, log: log),
        ])
        #expect(keeper.action(for: Self.snapshot(.connected, occupied: false))?.name == "keep")
        #expect(log.withLockedValue { $0 } == ["one", "two"])
    }
}
