import NIOConcurrencyHelpers

/// The demo and soak steps waiting now (every `within`), so a missed deadline can say which
/// step was waiting on what and for how long.
enum ActiveSteps {
    private struct State {
        var steps: [Int: (what: String, since: ContinuousClock.Instant)] = [:]
        var next = 0
    }

    private static let state = NIOLockedValueBox(State())

    static func begin(_ what: String) -> Int {
        state.withLockedValue { state in
            state.next += 1
            state.steps[state.next] = (what, .now)
            return state.next
        }
    }

    static func end(_ id: Int) {
        _ = state.withLockedValue { $0.steps.removeValue(forKey: id) }
    }

    /// One line per step still waiting, the oldest first.
    static var lines: [String] {
        let now = ContinuousClock.now
        return state.withLockedValue { Array($0.steps.values) }
            .sorted { $0.since < $1.since }
            .map { "waiting for \($0.what) (for \(SoakReport.seconds(now - $0.since)) s)" }
    }
}
