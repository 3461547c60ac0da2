public import SwitchboardCore
public import Foundation
public import Logging

/// How a ``FailoverDriver`` reaches the backend over its two transports, and how hard it tries
/// (``FailoverDriver/Options``).
public struct FailoverOptions: Sendable {
    /// The plain WebSocket endpoint (`ws://host/ws`); the channel id is added as a query.
    public var webSocketURL: URL
    /// The Socket.IO server (`http://host`) and the namespace that carries channels.
    public var socketIOURL: URL
    /// The Socket.IO namespace that carries channels.
    public var namespace = "/channel"
    /// How long opening one transport and resuming the channel on it may take.
    public var connectTimeout: Duration = .seconds(5)
    /// The timeout of requests that give none.
    public var requestTimeout: Duration = .seconds(10)
    /// Unacknowledged messages kept at most; past it `send` throws (nothing is dropped), and
    /// ``FailoverDriver/send(_:_:waitingUpTo:)`` waits for acknowledgements to make room.
    public var window = 1_000
    /// Acknowledge after this many messages, or after ``ackDelay`` for fewer.
    public var ackEvery = 32
    /// How long an acknowledgement waits for more messages before it goes out.
    public var ackDelay: Duration = .milliseconds(20)
    /// Reconnection attempts after a transport dropped (across both transports) before the
    /// connection is reported lost.
    public var maxAttempts = 20
    /// How often the policy's time-based rules run (and the acknowledgement deadline is checked).
    public var tickInterval: Duration = .seconds(1)
    /// A message unacknowledged this long means the transport stalled (open, but nothing
    /// moves): it is abandoned and the channel resumes (``FailoverSignal/deadlineMissed(_:)``).
    /// A path that stalls while nothing is sent is noticed at the next send (Socket.IO's own
    /// heartbeat notices it too).
    public var ackTimeout: Duration = .seconds(10)
    /// The clock of deadlines, acknowledgement delays and ticks; inject a test clock in tests.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Where the driver logs; silent unless you pass your own.
    public var logger = Logger.disabled("switchboard.failover")
    /// Feeds network path changes to the policy (``FailoverSignal/pathChanged(_:)``); the
    /// system's monitor by default, `nil` for none.
    public var networkMonitor: (any NetworkMonitor)? = NetworkMonitors.system

    /// Options for a channel over the plain WebSocket at `webSocketURL` and Socket.IO at `socketIOURL`, defaults for the rest.
    public init(webSocketURL: URL, socketIOURL: URL) {
        self.webSocketURL = webSocketURL
        self.socketIOURL = socketIOURL
    }
}
