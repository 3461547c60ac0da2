import NIOConcurrencyHelpers

extension Manager {
    /// Whether a socket other than `socket` wants the connection (connected, connecting, or
    /// waiting to reconnect): a manager shared by several namespaces stays open for them.
    package func hasActiveSockets(besides socket: Socket) -> Bool {
        transition { state in state.sockets.all.contains { $0 !== socket && $0.connection.isActive } }
    }
}
