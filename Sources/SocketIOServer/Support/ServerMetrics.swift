import SwitchboardCore
import CoreMetrics
import NIOConcurrencyHelpers

/// The server's metrics, through swift-metrics: nothing is recorded unless the app bootstraps a
/// backend (`MetricsSystem.bootstrap`) before it makes the server. Names follow Prometheus's
/// conventions (`_total` counters, `_seconds` timers, `_bytes`); labels are bounded — the
/// namespace, the transport, a disconnect reason — never an event name or an id.
///
/// | metric | kind | labels |
/// |---|---|---|
/// | `engineio_sessions_open` | gauge | — |
/// | `engineio_sessions_total` | counter | `transport` (the one it opened on) |
/// | `engineio_upgrades_total` | counter | — |
/// | `engineio_received_bytes_total`, `engineio_sent_bytes_total` | counter | `transport` |
/// | `socketio_sockets_connected` | gauge | `namespace` |
/// | `socketio_connections_total` | counter | `namespace` |
/// | `socketio_disconnections_total` | counter | `namespace`, `reason` |
/// | `socketio_recovery_attempts_total`, `socketio_recoveries_total` | counter | `namespace` |
/// | `socketio_events_received_total`, `socketio_events_sent_total` | counter | `namespace` |
/// | `socketio_acks_answered_total` | counter | `namespace` |
/// | `socketio_ack_round_trip_seconds` | timer (histogram) | `namespace` |
/// | `socketio_cluster_servers` | gauge | `namespace` |
/// | `socketio_cluster_publish_failures_total` | counter | `namespace` |
/// | `socketio_cluster_missed_messages_total` | counter | `namespace` (gaps in another server's numbering) |
/// | `socketio_cluster_duplicate_messages_total` | counter | `namespace` (re-deliveries dropped) |
final class ServerMetrics: Sendable {
    private let factory: any MetricsFactory
    let openSessions: Meter
    let upgrades: Counter
    private let sessionsByTransport: [SocketIOServer.TransportKind: Counter]
    private let received: [SocketIOServer.TransportKind: Counter]
    private let sent: [SocketIOServer.TransportKind: Counter]
    private let namespaces = NIOLockedValueBox<[String: NamespaceMetrics]>([:])

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        openSessions = Meter(label: "engineio_sessions_open", dimensions: [], factory: factory)
        upgrades = Counter(label: "engineio_upgrades_total", dimensions: [], factory: factory)
        func byTransport(_ label: String) -> [SocketIOServer.TransportKind: Counter] {
            Dictionary(uniqueKeysWithValues: SocketIOServer.TransportKind.allCases.map {
                ($0, Counter(label: label, dimensions: [("transport", $0.rawValue)], factory: factory))
            })
        }
        sessionsByTransport = byTransport("engineio_sessions_total")
        received = byTransport("engineio_received_bytes_total")
        sent = byTransport("engineio_sent_bytes_total")
    }

    /// The metrics of namespace `name` (made once).
    func namespace(_ name: String) -> NamespaceMetrics {
        namespaces.withLockedValue { namespaces in
            if let existing = namespaces[name] { return existing }
            let made = NamespaceMetrics(name: name, factory: factory)
            namespaces[name] = made
            return made
        }
    }

    func received(_ bytes: Int, over transport: SocketIOServer.TransportKind) {
        received[transport]?.increment(by: bytes)
    }

    func sent(_ bytes: Int, over transport: SocketIOServer.TransportKind) {
        sent[transport]?.increment(by: bytes)
    }

    /// What a connection event counts.
    func record(_ event: ConnectionEvent) {
        switch event {
        case .sessionOpened(_, let transport, _):
            openSessions.increment()
            sessionsByTransport[transport]?.increment()
        case .sessionUpgraded:
            upgrades.increment()
        case .sessionClosed:
            openSessions.decrement()
        case .socketConnected(let name, _, _, let recovered):
            let metrics = namespace(name)
            metrics.sockets.increment()
            metrics.connections.increment()
            if recovered { metrics.recoveries.increment() }
        case .socketDisconnected(let name, _, let reason):
            let metrics = namespace(name)
            metrics.sockets.decrement()
            metrics.disconnected(reason: reason)
        case .socketRefused, .plainWebSocketOpened, .plainWebSocketClosed:
            break
        }
    }
}

/// One namespace's metrics (see ``ServerMetrics``).
final class NamespaceMetrics: Sendable {
    let name: String
    private let factory: any MetricsFactory
    fileprivate let sockets: Meter
    fileprivate let connections: Counter
    fileprivate let recoveryAttempts: Counter
    fileprivate let recoveries: Counter
    fileprivate let eventsReceived: Counter
    fileprivate let eventsSent: Counter
    fileprivate let acksAnswered: Counter
    fileprivate let ackRoundTrip: Timer
    fileprivate let clusterServers: Meter
    fileprivate let clusterPublishFailures: Counter
    fileprivate let clusterMissed: Counter
    fileprivate let clusterDuplicates: Counter
    /// By the reason as socket.io spells it (without detail: a bounded set).
    private let disconnections = NIOLockedValueBox<[String: Counter]>([:])

    init(name: String, factory: any MetricsFactory) {
        self.name = name
        self.factory = factory
        let dimensions = [("namespace", name)]
        func counter(_ label: String) -> Counter { Counter(label: label, dimensions: dimensions, factory: factory) }
        func gauge(_ label: String) -> Meter { Meter(label: label, dimensions: dimensions, factory: factory) }
        sockets = gauge("socketio_sockets_connected")
        connections = counter("socketio_connections_total")
        recoveryAttempts = counter("socketio_recovery_attempts_total")
        recoveries = counter("socketio_recoveries_total")
        eventsReceived = counter("socketio_events_received_total")
        eventsSent = counter("socketio_events_sent_total")
        acksAnswered = counter("socketio_acks_answered_total")
        ackRoundTrip = Timer(label: "socketio_ack_round_trip_seconds", dimensions: dimensions, factory: factory)
        clusterServers = gauge("socketio_cluster_servers")
        clusterPublishFailures = counter("socketio_cluster_publish_failures_total")
        clusterMissed = counter("socketio_cluster_missed_messages_total")
        clusterDuplicates = counter("socketio_cluster_duplicate_messages_total")
    }

    func eventReceived() { eventsReceived.increment() }
    func eventsSent(_ count: Int) { if count > 0 { eventsSent.increment(by: count) } }
    func ackAnswered() { acksAnswered.increment() }
    func recoveryAttempted() { recoveryAttempts.increment() }
    func ackRoundTrip(_ duration: Duration) { ackRoundTrip.recordNanoseconds(duration.wholeNanoseconds) }
    func clusterServers(_ count: Int) { clusterServers.set(count) }
    func clusterPublishFailed() { clusterPublishFailures.increment() }
    func clusterMessagesMissed(_ count: Int) { clusterMissed.increment(by: count) }
    func clusterDuplicateDropped() { clusterDuplicates.increment() }

    /// Counts a socket that left, by why (a handful of reasons: the label stays bounded).
    func disconnected(reason: ServerDisconnectReason) {
        let label = reason.description
        let counter = disconnections.withLockedValue { counters in
            if let existing = counters[label] { return existing }
            let made = Counter(
                label: "socketio_disconnections_total",
                dimensions: [("namespace", name), ("reason", label)],
                factory: factory
            )
            counters[label] = made
            return made
        }
        counter.increment()
    }
}
