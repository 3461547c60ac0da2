import NIOConcurrencyHelpers

/// A ``ClusterTransport`` between servers in one process: what one publishes, every server
/// subscribed to the namespace gets, in order. For tests and for trying a cluster without a
/// database.
///
/// ```swift
/// let bus = LocalClusterBus()
/// var configuration = SocketIOServer.Configuration()
/// configuration.adapter = .cluster(bus.transport())
/// ```
public final class LocalClusterBus: Sendable {
    private struct Subscriber {
        let owner: ObjectIdentifier
        let deliver: @Sendable (ClusterMessage) -> Void
    }

    private let subscribers = NIOLockedValueBox<[String: [Subscriber]]>([:])
    private let published = NIOLockedValueBox<Int>(0)
    private let failing = NIOLockedValueBox<Bool>(false)

    /// An empty bus.
    public init() {}

    /// A transport for one more server on the bus.
    public func transport() -> some ClusterTransport { Member(bus: self) }

    /// How many messages were published on the bus.
    public var publishedCount: Int { published.withLockedValue { $0 } }

    /// While `true`, every publish fails (to try what a database outage does).
    public func setFailing(_ value: Bool) {
        failing.withLockedValue { $0 = value }
    }

    fileprivate func subscribe(_ owner: ObjectIdentifier, namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) {
        subscribers.withLockedValue { $0[namespace, default: []].append(Subscriber(owner: owner, deliver: deliver)) }
    }

    fileprivate func publish(_ message: ClusterMessage) throws {
        let targets: [Subscriber] = try subscribers.withLockedValue { subscribers in
            if failing.withLockedValue({ $0 }) { throw LocalClusterBusError.unavailable }
            published.withLockedValue { $0 += 1 }
            return subscribers[message.namespace] ?? []
        }
        for target in targets { target.deliver(message) }
    }

    fileprivate func remove(_ owner: ObjectIdentifier) {
        subscribers.withLockedValue { subscribers in
            for key in subscribers.keys { subscribers[key]?.removeAll { $0.owner == owner } }
        }
    }

    private final class Member: ClusterTransport {
        let bus: LocalClusterBus

        init(bus: LocalClusterBus) { self.bus = bus }

        func subscribe(namespace: String, deliver: @escaping @Sendable (ClusterMessage) -> Void) async throws {
            bus.subscribe(ObjectIdentifier(self), namespace: namespace, deliver: deliver)
        }

        func publish(_ message: ClusterMessage) async throws {
            try bus.publish(message)
        }

        func shutdown() async {
            bus.remove(ObjectIdentifier(self))
        }
    }
}

/// A ``LocalClusterBus`` set failing refused a message.
public enum LocalClusterBusError: Error, Sendable, Hashable {
    /// ``LocalClusterBus/setFailing(_:)`` is on.
    case unavailable
}
