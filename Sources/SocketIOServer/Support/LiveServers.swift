import NIOConcurrencyHelpers

/// Every server alive in the process, for diagnostics (the soak harness prints their state when
/// a step misses its deadline). Weak: it keeps nothing alive.
package enum LiveServers {
    private struct Entry: Sendable {
        weak let server: SocketIOServer?
    }

    private static let entries = NIOLockedValueBox<[ObjectIdentifier: Entry]>([:])

    static func add(_ server: SocketIOServer) {
        entries.withLockedValue { $0[ObjectIdentifier(server)] = Entry(server: server) }
    }

    static func remove(_ id: ObjectIdentifier) {
        _ = entries.withLockedValue { $0.removeValue(forKey: id) }
    }

    /// One line per server alive now: where it listens, its sessions and its unfinished connections.
    package static var diagnostics: [String] {
        let servers = entries.withLockedValue { $0.values.compactMap(\.server) }
        return servers.map { server in
            let state: String = server.lifecycle.withLockedValue { lifecycle in
                switch lifecycle {
                case .idle: "not started"
                case .running(_, let running): "listening on port \(running.port)"
                case .stopped: "stopped"
                }
            }
            return "server \(state): \(server.core.sessions.count) Engine.IO sessions, "
                + "\(server.core.unfinished.count) connections without a complete request head"
        }
    }
}
