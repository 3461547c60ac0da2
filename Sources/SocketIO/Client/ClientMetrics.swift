import SwitchboardCore
import CoreMetrics

/// The client's metrics, through swift-metrics: nothing is recorded unless the app bootstraps a
/// backend (`MetricsSystem.bootstrap`) before it makes its managers. Labels: none (a process
/// has few managers, and a URL is not a bounded label).
///
/// | metric | kind |
/// |---|---|
/// | `socketio_client_sessions_open` | gauge: Engine.IO sessions open now, over every manager |
/// | `socketio_client_reconnect_attempts_total` | counter |
/// | `socketio_client_reconnects_total` | counter: reconnections that succeeded |
/// | `socketio_client_ack_round_trip_seconds` | timer (histogram): `emitWithAck` to its ack |
struct ClientMetrics: Sendable {
    private let sessionsOpen: Meter
    private let reconnectAttempts: Counter
    private let reconnects: Counter
    private let ackRoundTrip: Timer

    init(factory: any MetricsFactory = MetricsSystem.factory) {
        sessionsOpen = Meter(label: "socketio_client_sessions_open", dimensions: [], factory: factory)
        reconnectAttempts = Counter(label: "socketio_client_reconnect_attempts_total", dimensions: [], factory: factory)
        reconnects = Counter(label: "socketio_client_reconnects_total", dimensions: [], factory: factory)
        ackRoundTrip = Timer(label: "socketio_client_ack_round_trip_seconds", dimensions: [], factory: factory)
    }

    /// What a manager event counts.
    func record(_ event: ManagerEvent) {
        switch event {
        case .open: sessionsOpen.increment()
        case .close: sessionsOpen.decrement()
        case .reconnectAttempt: reconnectAttempts.increment()
        case .reconnect: reconnects.increment()
        case .ping, .upgrade, .error, .reconnectError, .reconnectFailed: break
        }
    }

    func ackRoundTrip(_ duration: Duration) {
        ackRoundTrip.recordNanoseconds(duration.wholeNanoseconds)
    }
}
