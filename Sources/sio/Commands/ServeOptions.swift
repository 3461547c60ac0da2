import ArgumentParser
import SocketIOServer

/// `sio serve`'s Engine.IO settings: heartbeats, the older protocol, and how many sessions.
struct EngineIOServeOptions: ParsableArguments {
    @Option(name: .long, help: "Heartbeat interval in milliseconds (default 25000).")
    var pingInterval: Int?

    @Option(name: .long, help: "Heartbeat timeout in milliseconds (default 20000).")
    var pingTimeout: Int?

    @Flag(name: .long, help: "Also serve Engine.IO v3 / Socket.IO v4 clients (socket.io 2.x, python-socketio 4.x), like socket.io's allowEIO3.")
    var allowEio3 = false

    @Option(name: .long, help: "The most sessions open at once; the next handshake gets 403 (default: no limit).")
    var maxSessions: Int?

    @Option(name: .long, help: "The most sessions open at once from one IP address (default: no limit).")
    var maxSessionsPerAddress: Int?

    /// Writes the options given into `configuration` (a value below 1 counts as 1).
    func apply(to configuration: inout SocketIOServer.Configuration) {
        if let pingInterval { configuration.pingInterval = .milliseconds(max(pingInterval, 1)) }
        if let pingTimeout { configuration.pingTimeout = .milliseconds(max(pingTimeout, 1)) }
        configuration.allowEIO3 = allowEio3
        configuration.maxSessions = maxSessions.map { max($0, 1) }
        configuration.maxSessionsPerAddress = maxSessionsPerAddress.map { max($0, 1) }
    }
}

/// `sio serve --cluster`: where the cluster meets, and its heartbeats.
struct ClusterServeOptions: ParsableArguments {
    @Option(name: .long, help: "Join a cluster of servers through PostgreSQL (postgres://user@host:port/db), wire-compatible with socket.io's @socket.io/postgres-adapter.")
    var cluster: String?

    @Option(name: .long, help: "With --cluster: milliseconds between heartbeats (default 5000).")
    var clusterHeartbeatInterval: Int?

    @Option(name: .long, help: "With --cluster: milliseconds without a message before a server is forgotten (default 10000).")
    var clusterHeartbeatTimeout: Int?

    /// The heartbeat settings given (a value below 1 counts as 1), the defaults for the others.
    var options: ClusterOptions {
        var options = ClusterOptions()
        if let clusterHeartbeatInterval { options.heartbeatInterval = .milliseconds(max(clusterHeartbeatInterval, 1)) }
        if let clusterHeartbeatTimeout { options.heartbeatTimeout = .milliseconds(max(clusterHeartbeatTimeout, 1)) }
        return options
    }
}
