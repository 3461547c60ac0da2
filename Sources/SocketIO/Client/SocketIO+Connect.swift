public import Foundation
import SocketIOProtocol

/// Connects to a Socket.IO server in one call, like socket.io's `io(url)`, and returns the
/// connected socket.
///
/// ```swift
/// let socket = try await io("http://localhost:3000/chat", auth: .static(["token": "secret"]))
/// let reply = try await socket.timeout(.seconds(5)).emitWithAck("echo", "hi")
/// await socket.io.close()                       // the socket's manager: close before exiting
/// ```
///
/// As in socket.io, the URL's path is the namespace: `http://localhost:3000/chat` joins `/chat`
/// (the Engine.IO path is ``Manager/Configuration/path``); or give it as `namespace`.
///
/// It is ``Manager/init(url:configuration:)``, ``Manager/socket(namespace:auth:)`` and
/// ``Socket/connect()`` in a row, nothing more: the socket keeps its manager alive, and
/// ``Socket/io`` reaches it for `close()`, more namespaces or manager events. Like `connect()`
/// it waits across reconnection attempts; set `configuration.reconnection = false` to fail at
/// the first refusal.
///
/// - Throws: ``SocketIOError/invalidURL(_:)`` for a string that is no `http`, `https`, `ws` or
///   `wss` URL, ``SocketIOError/namespaceConflict(_:)`` when the URL's path and `namespace` name
///   different namespaces, and whatever ``Socket/connect()`` throws (the manager is closed then).
public func io(
    _ url: String, namespace: String? = nil, auth: SocketAuth = .none,
    configuration: Manager.Configuration = Manager.Configuration()
) async throws(SocketIOError) -> Socket {
    guard let parsed = URL(string: url) else { throw .invalidURL(url) }
    return try await io(parsed, namespace: namespace, auth: auth, configuration: configuration)
}

/// Connects to a Socket.IO server in one call and returns the connected socket (the same as
/// the `io(_:namespace:auth:configuration:)` that takes the URL as a `String`).
public func io(
    _ url: URL, namespace: String? = nil, auth: SocketAuth = .none,
    configuration: Manager.Configuration = Manager.Configuration()
) async throws(SocketIOError) -> Socket {
    let joined: String
    do {
        joined = try SocketNamespace.resolve(url: url, namespace: namespace)
    } catch {
        throw .namespaceConflict(error)
    }
    let manager = try Manager(url: url, configuration: configuration)
    let socket = manager.socket(namespace: joined, auth: auth)
    do {
        try await socket.connect()
    } catch {
        await manager.close()
        throw error
    }
    return socket
}

extension Socket {
    /// The manager this socket belongs to (socket.io's `socket.io`): close it before the
    /// process exits, open more namespaces on the same connection, or watch its events.
    public var io: Manager { manager }
}
