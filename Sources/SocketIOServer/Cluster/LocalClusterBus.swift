import NIOConcurrencyHelpers

/// A ``ClusterTransport`` between servers in one process: what one publishes, every server
/// subscribed to the namespace gets, in order. For tests and for trying a cluster without a
/// database.
///
/// ```swift
/// let bus = LocalClusterBus()
/// var configuration = SocketIOServer.Configuration()
/// configuration.adapter = .cluster(bus.endpoint())
/// ```
public final class LocalClusterBus: Sendable {
    private struct Subscriber {
        let endpoint: ObjectIdentifier
        let deliver: @Sendable (ClusterMessage) -> Void
    }

    private struct State {
        var subscribers: [String: [Subscriber]] = [:]
        var unreachable: Set<ObjectIdentifier> = []
        var failing = false
        var published = 0
    }

    private let state = NIOLockedValueBox(State())

    /// An empty bus.
    public init() {}

    /// A transport for one more server on the bus.
    public func endpoint() -> Endpoint { Endpoint(bus: self) }

    /// How many messages were published on the bus.
    package var publishedCount: Int { state.withLockedValue { $0.published } }

    /// While `true`, every publish fails (what a database outage does to every server).
    package func setFailing(_ value: Bool) {
        state.withLockedValue { $0.failing = value }
    }

    /// Delivers `message` to every subscriber of its namespace as if a server had published it
    /// (a foreign or malformed message, in tests).
    package func inject(_ message: ClusterMessage) {
        for target in targets(of: message) { target.deliver(message) }
    }

    private func targets(of message: ClusterMessage) -> [Subscriber] {
        state.withLockedValue { state in
            (state.subscribers[message.namespace] ?? []).filter { !state.unreachable.contains($0.endpoint) }
        }
    }

    fileprivate func subscribe(_ endpoint: ObjectIdentifier, namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) {
        state.withLockedValue { $0.subscribers[namespace, default: []].append(Subscriber(endpoint: endpoint, deliver: deliver)) }
    }

    fileprivate func publish(_ message: ClusterMessage, from endpoint: ObjectIdentifier) throws(LocalClusterBusError) {
        let targets: [Subscriber]? = state.withLockedValue { state in
            guard !state.failing, !state.unreachable.contains(endpoint) else { return nil }
            state.published += 1
            return (state.subscribers[message.namespace] ?? []).filter { !state.unreachable.contains($0.endpoint) }
        }
        guard let targets else { throw .unavailable }
        for target in targets { target.deliver(message) }
    }

    fileprivate func setReachable(_ endpoint: ObjectIdentifier, _ reachable: Bool) {
        state.withLockedValue { state in
            if reachable { state.unreachable.remove(endpoint) } else { state.unreachable.insert(endpoint) }
        }
    }

    fileprivate func remove(_ endpoint: ObjectIdentifier) {
        state.withLockedValue { state in
            for key in state.subscribers.keys { state.subscribers[key]?.removeAll { $0.endpoint == endpoint } }
        }
    }

    /// One server's connection to the bus.
    public final class Endpoint: ClusterTransport {
        private let bus: LocalClusterBus

        fileprivate init(bus: LocalClusterBus) { self.bus = bus }

        /// Cuts this server off the bus (`false`: it publishes nothing and receives nothing, as
        /// a crashed or partitioned server) or puts it back.
        package func setReachable(_ reachable: Bool) {
            bus.setReachable(ObjectIdentifier(self), reachable)
        }

        /// Delivers every message published on the bus for `namespace` to `deliver` (``ClusterTransport/subscribe(namespace:deliver:)``).
        public func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws {
            bus.subscribe(ObjectIdentifier(self), namespace: namespace, deliver: deliver)
        }

        /// Hands `message` to every endpoint subscribed to its namespace, this one included.
        public func publish(_ message: ClusterMessage) async throws {
            try bus.publish(message, from: ObjectIdentifier(self))
        }

        /// Leaves the bus.
        public func shutdown() async {
            bus.remove(ObjectIdentifier(self))
        }
    }
}

/// A ``LocalClusterBus`` refused a message.
public enum LocalClusterBusError: Error, Sendable, Hashable {
    /// The bus is failing (`setFailing(_:)`, for tests) or the endpoint is cut off.
    case unavailable
}
