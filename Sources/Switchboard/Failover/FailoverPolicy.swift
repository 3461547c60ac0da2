public import struct SwitchboardCore.NetworkPath

/// The two transports of a failover channel.
public enum FailoverTransport: Sendable, Hashable, CustomStringConvertible {
    /// Plain WebSocket with the JSON envelope: fewer bytes and less work per message; preferred
    /// while the network is good.
    case webSocket
    /// Socket.IO: its reconnection, long-polling fallback and upgrade ride out a bad network.
    case socketIO

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .webSocket: "WebSocket"
        case .socketIO: "Socket.IO"
        }
    }
}

/// What the channel observed, for its ``FailoverPolicy``.
public enum FailoverSignal: Sendable, Hashable {
    /// The transport opened (and the channel resumed on it).
    case connected(FailoverTransport)
    /// Opening the transport failed.
    case connectFailed(FailoverTransport)
    /// The open transport went away by itself (a cut, a missed heartbeat, a stall).
    case dropped(FailoverTransport)
    /// A request or acknowledgement deadline passed on the transport.
    case deadlineMissed(FailoverTransport)
    /// A round trip measured on the current transport (from the channel's own acknowledgements).
    case roundTrip(Duration)
    /// The network path changed (`NetworkMonitor`).
    case pathChanged(NetworkPath)
}

/// What the policy wants.
public enum FailoverDecision: Sendable, Hashable {
    /// Keep the current transport.
    case stay
    /// Move the channel to `transport`; `reason` is shown in the channel's events.
    case switchTo(FailoverTransport, reason: String)
}

/// Decides which transport a failover channel uses, from measured signals. A value type: the
/// channel holds it under its lock, feeds it every signal and a tick about once a second, and
/// acts on the decision. Time is passed in (`now`, on the channel's clock), so every rule runs
/// on a test clock.
public protocol FailoverPolicy: Sendable {
    /// The transport to open first.
    var initial: FailoverTransport { get }
    /// A signal observed while `current` carries the channel.
    mutating func observe(_ signal: FailoverSignal, current: FailoverTransport, now: Duration) -> FailoverDecision
    /// Time passed (time-based rules: the return to WebSocket).
    mutating func tick(current: FailoverTransport, now: Duration) -> FailoverDecision
    /// Whether the channel may open `transport` on its own (after failed connects it tries the
    /// other transport even while the policy holds on, unless this says no). Default: both.
    func allows(_ transport: FailoverTransport) -> Bool
}

extension FailoverPolicy {
    /// Every transport is allowed unless a policy says otherwise.
    public func allows(_ transport: FailoverTransport) -> Bool { true }
}

extension FailoverPolicy where Self == PinnedFailoverPolicy {
    /// One transport only: the channel's delivery guarantees (numbered, acknowledged, resumed
    /// after a reconnect — once each, in order) without failover. `.failover(policy:
    /// .pinned(to: .socketIO))` is a Socket.IO connection whose sends are confirmed.
    public static func pinned(to transport: FailoverTransport) -> PinnedFailoverPolicy {
        PinnedFailoverPolicy(transport)
    }
}

/// A policy that keeps the channel on one transport: it reconnects there, never switches.
public struct PinnedFailoverPolicy: FailoverPolicy {
    /// The one transport.
    public let transport: FailoverTransport

    /// Keeps the channel on `transport`.
    public init(_ transport: FailoverTransport) {
        self.transport = transport
    }

    /// The pinned transport.
    public var initial: FailoverTransport { transport }

    /// Never switches: the channel stays on the pinned transport.
    public func observe(_ signal: FailoverSignal, current: FailoverTransport, now: Duration) -> FailoverDecision {
        current == transport ? .stay : .switchTo(transport, reason: "pinned to \(transport)")
    }

    /// Never switches.
    public func tick(current: FailoverTransport, now: Duration) -> FailoverDecision {
        current == transport ? .stay : .switchTo(transport, reason: "pinned to \(transport)")
    }

    /// Only the pinned transport.
    public func allows(_ transport: FailoverTransport) -> Bool { transport == self.transport }
}

/// The default policy: leave WebSocket only after repeated trouble, come back only after the
/// network has been good for a while, and wait longer each time a return did not last.
///
/// - **Leave WebSocket** after ``failuresToLeave`` failures (failed connects, drops, missed
///   deadlines) within ``failureWindow`` — a single blip reconnects on WebSocket — or after
///   ``slowSamples`` round trips in a row slower than ``slowRoundTrip``.
/// - **Return to WebSocket** after ``goodPeriod`` on Socket.IO with no failure, no slow round
///   trip and no network path change.
/// - **No flapping**: a return followed within ``flapWindow`` by another departure doubles the
///   good period needed next time (up to ``maxGoodPeriod``); a WebSocket that then stays up for
///   ``flapWindow`` resets it.
public struct DefaultFailoverPolicy: FailoverPolicy {
    /// The transport a channel opens on.
    public var initial: FailoverTransport = .webSocket
    /// Failures (failed connects, missed acknowledgement deadlines) within ``failureWindow`` that move the channel off WebSocket.
    public var failuresToLeave = 2
    /// How far back failures count.
    public var failureWindow: Duration = .seconds(30)
    /// A round trip slower than this counts as slow.
    public var slowRoundTrip: Duration = .milliseconds(1500)
    /// Slow round trips in a row that move the channel off WebSocket.
    public var slowSamples = 3
    /// How long Socket.IO must go well before the channel returns to WebSocket.
    public var goodPeriod: Duration = .seconds(60)
    /// The longest good period flapping can make necessary.
    public var maxGoodPeriod: Duration = .seconds(600)
    /// A departure within this long after a return counts as flapping.
    public var flapWindow: Duration = .seconds(300)

    private var failures: [Duration] = []
    private var slowInARow = 0
    /// On Socket.IO: since when nothing bad happened.
    private var goodSince: Duration?
    /// When the channel last came back to WebSocket.
    private var returnedAt: Duration?
    private var goodPeriodNow: Duration?

    /// The policy with the defaults above.
    public init() {}

    /// The good period the next return needs.
    public var currentGoodPeriod: Duration { goodPeriodNow ?? goodPeriod }

    /// On WebSocket: leaves for Socket.IO after ``failuresToLeave`` failures within
    /// ``failureWindow``, or ``slowSamples`` slow round trips in a row. On Socket.IO: a failure or a
    /// slow round trip starts the good period over.
    public mutating func observe(_ signal: FailoverSignal, current: FailoverTransport, now: Duration) -> FailoverDecision {
        switch current {
        case .webSocket: return observeOnWebSocket(signal, now: now)
        case .socketIO:
            switch signal {
            case .connectFailed, .dropped, .deadlineMissed, .pathChanged:
                goodSince = now
            case .roundTrip(let time):
                if time > slowRoundTrip { goodSince = now }
            case .connected(.socketIO):
                if goodSince == nil { goodSince = now }
            case .connected(.webSocket):
                break
            }
            return .stay
        }
    }

    private mutating func observeOnWebSocket(_ signal: FailoverSignal, now: Duration) -> FailoverDecision {
        switch signal {
        case .connectFailed(.webSocket), .dropped(.webSocket), .deadlineMissed(.webSocket):
            failures.append(now)
            failures.removeAll { now - $0 > failureWindow }
            guard failures.count >= failuresToLeave else { return .stay }
            return leave(now: now, reason: "\(failures.count) failures within \(failureWindow)")
        case .roundTrip(let time):
            slowInARow = time > slowRoundTrip ? slowInARow + 1 : 0
            guard slowInARow >= slowSamples else { return .stay }
            return leave(now: now, reason: "\(slowInARow) round trips slower than \(slowRoundTrip)")
        case .connected, .connectFailed, .dropped, .deadlineMissed, .pathChanged:
            return .stay
        }
    }

    private mutating func leave(now: Duration, reason: String) -> FailoverDecision {
        failures = []
        slowInARow = 0
        goodSince = now
        if let returnedAt, now - returnedAt < flapWindow {
            goodPeriodNow = min(currentGoodPeriod * 2, maxGoodPeriod)
        }
        returnedAt = nil
        return .switchTo(.socketIO, reason: reason)
    }

    /// On Socket.IO: returns to WebSocket once the good period has passed without a failure. On
    /// WebSocket: forgets a doubled good period once ``flapWindow`` has passed since the return.
    public mutating func tick(current: FailoverTransport, now: Duration) -> FailoverDecision {
        switch current {
        case .webSocket:
            if let returned = returnedAt, now - returned >= flapWindow {
                goodPeriodNow = nil
                returnedAt = nil
            }
            return .stay
        case .socketIO:
            let since = goodSince ?? now
            if goodSince == nil { goodSince = now }
            guard now - since >= currentGoodPeriod else { return .stay }
            goodSince = nil
            returnedAt = now
            failures = []
            slowInARow = 0
            return .switchTo(.webSocket, reason: "the network was good for \(currentGoodPeriod)")
        }
    }
}
