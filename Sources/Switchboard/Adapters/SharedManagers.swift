import Foundation
import NIOConcurrencyHelpers
import SocketIO

/// The Socket.IO managers of one factory, shared between its connections the way socket.io
/// multiplexes: connections to the same server with the same engine options (path, query,
/// transport, headers, connect timeout) and different namespaces ride one manager, so one Engine.IO
/// session. A namespace is never on one manager twice (two configurations for one namespace,
/// with different auth say, get managers of their own).
final class SharedManagers: Sendable {
    /// What must be equal for two connections to share an Engine.IO session.
    struct Key: Hashable, Sendable {
        var scheme: String?
        var host: String?
        var port: Int?
        var path: String
        /// Sent with every Engine.IO request, so the server sees it in each namespace's handshake.
        var query: String?
        var transport: ConnectionTransport
        var headers: [ConnectionHeader]
        var connectTimeout: Duration
        var network: NetworkSettings

        init(_ configuration: ConnectionConfiguration) {
            scheme = configuration.url.scheme?.lowercased()
            host = configuration.url.host?.lowercased()
            port = configuration.url.port
            path = configuration.path
            query = URLComponents(url: configuration.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery
            transport = configuration.transport
            headers = configuration.headers
            connectTimeout = configuration.connectTimeout
            network = configuration.network
        }
    }

    private struct Slot {
        let manager: Manager
        var namespaces: Set<String>
    }

    private let slots = NIOLockedValueBox<[Key: [Slot]]>([:])

    /// A manager for `configuration`'s server on which its namespace is free, made by `make`
    /// when there is none; hand it back with ``release(_:namespace:key:)``.
    func acquire(
        _ configuration: ConnectionConfiguration,
        make: () throws(ConnectionError) -> Manager
    ) throws(ConnectionError) -> Manager {
        let key = Key(configuration)
        let namespace = configuration.namespace
        if let shared = slots.withLockedValue({ slots -> Manager? in
            guard let index = slots[key]?.firstIndex(where: { !$0.namespaces.contains(namespace) }) else { return nil }
            slots[key]?[index].namespaces.insert(namespace)
            return slots[key]?[index].manager
        }) {
            return shared
        }
        let manager = try make()
        slots.withLockedValue { $0[key, default: []].append(Slot(manager: manager, namespaces: [namespace])) }
        return manager
    }

    /// The connection for `namespace` on `manager` is gone; the manager is forgotten with its
    /// last namespace.
    func release(_ manager: Manager, namespace: String, key: Key) {
        slots.withLockedValue { slots in
            guard var list = slots[key], let index = list.firstIndex(where: { $0.manager === manager }) else { return }
            list[index].namespaces.remove(namespace)
            if list[index].namespaces.isEmpty { list.remove(at: index) }
            slots[key] = list.isEmpty ? nil : list
        }
    }

    /// How many managers are shared now (for tests).
    var count: Int { slots.withLockedValue { $0.values.reduce(0) { $0 + $1.count } } }
}
