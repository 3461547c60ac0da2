import NIOConcurrencyHelpers
package import SwitchboardCore

extension SocketIOServer {
    /// Every server alive in the process, for diagnostics (the soak harness prints their state
    /// when a step misses its deadline).
    package static let live = LiveRegistry<SocketIOServer>()

    /// One line: where the server listens, its sessions and its unfinished connections.
    package var diagnostics: String {
        let state: String = switch lifecycle.withLockedValue({ $0.state }) {
        case .idle: "not started"
        case .starting: "starting"
        case .running(let listener): "listening on port \(listener.port)"
        case .stopped: "stopped"
        }
        let sessions = core.sessions.all.map { "\n  session \($0.sid): \($0.diagnostics)" }.sorted()
        return "server \(state): \(sessions.count) Engine.IO sessions, "
            + "\(core.unfinished.count) connections without a complete request head" + sessions.joined()
    }
}
