/// A manager's sockets by namespace, as socket.io's `nsps`: `manager.socket(namespace:)`
/// returns the same socket while it exists.
///
/// A socket holds its manager (``Socket/io``), so the manager holds a socket strongly only while
/// it may be wanted — from when it is made, and from each `connect`, until it is disconnected,
/// refused, given up on, or the manager closes — and weakly after that. A closed manager and its
/// sockets are then freed when the app lets go of them (with strong references both ways they
/// never were: every closed connection stayed in memory).
struct SocketTable {
    private struct Entry {
        weak var socket: Socket?
        /// Set while the socket may be wanted.
        var held: Socket?
    }

    private var entries: [String: Entry] = [:]

    /// The socket of `namespace`, if it still exists.
    subscript(namespace: String) -> Socket? {
        entries[namespace].flatMap { $0.held ?? $0.socket }
    }

    /// Every socket that still exists.
    var all: [Socket] {
        entries.values.compactMap { $0.held ?? $0.socket }
    }

    /// Adds a new socket, held.
    mutating func add(_ socket: Socket) {
        entries[socket.namespace] = Entry(socket: socket, held: socket)
    }

    /// Holds the socket of `connection` (it is connecting).
    mutating func hold(_ connection: NamespaceConnection) {
        guard let socket = entries[connection.namespace]?.socket, socket.connection === connection else { return }
        entries[connection.namespace]?.held = socket
    }

    /// Stops holding the socket of `connection` (it ended); it stays reachable while the app keeps it.
    mutating func letGo(_ connection: NamespaceConnection) {
        guard entries[connection.namespace]?.held?.connection === connection else { return }
        entries[connection.namespace]?.held = nil
    }

    /// Stops holding every socket, and forgets those already gone.
    mutating func letGoAll() {
        entries = entries.filter { $0.value.socket != nil }
        for namespace in entries.keys { entries[namespace]?.held = nil }
    }
}
