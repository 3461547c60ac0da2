import Logging
import NIOConcurrencyHelpers
import SwitchboardCore
import SocketIOProtocol

/// What every part of a running server shares: settings, the clock, the logger, the hook.
struct ServerEnvironment: Sendable {
    let configuration: SocketIOServer.Configuration
    let clock: Timeline
    let logger: Logger
    let events: ConnectionEventHook
    /// The connections holding a long-poll GET, watched for closing.
    let heldPolls = HeldPollConnections()
    /// The metrics (the event hook records the lifecycle ones).
    var metrics: ServerMetrics { events.metrics }

    /// The Engine.IO session timing from the configuration.
    var timing: EngineTiming {
        EngineTiming(
            pingInterval: configuration.heartbeat.interval,
            pingTimeout: configuration.heartbeat.timeout,
            upgradeTimeout: configuration.upgradeTimeout,
            lingerTimeout: configuration.heartbeat.timeout
        )
    }

    var pollingLimits: PollingLimits {
        PollingLimits(
            maxBufferedBytes: configuration.maxQueuedBytes,
            maxFramesPerResponse: configuration.maxPacketsPerPoll
        )
    }

    /// The handshake a new session announces.
    func handshake(sid: String, transport: SocketIOServer.TransportKind) -> EngineHandshake {
        let upgrades = transport == .polling && configuration.transports.contains(.websocket) ? ["websocket"] : []
        return EngineHandshake(
            sid: sid,
            upgrades: upgrades,
            pingInterval: Int(configuration.heartbeat.interval.wholeMilliseconds),
            pingTimeout: Int(configuration.heartbeat.timeout.wholeMilliseconds),
            maxPayload: configuration.maxPayload
        )
    }
}

/// The app's ``ConnectionEvent`` listener, settable at any time.
///
/// The listener is kept as a ``Callback`` (a struct), not as the box's whole value: a function
/// stored directly in a generic box gains a re-abstraction thunk on every read, so each event
/// took longer than the one before (a server slowed to a stop after ~10,000 connections).
final class ConnectionEventHook: Sendable {
    private let handler = NIOLockedValueBox<Callback<ConnectionEvent>?>(nil)
    /// Counts every event, whether or not the app listens.
    let metrics: ServerMetrics

    init(metrics: ServerMetrics = ServerMetrics()) {
        self.metrics = metrics
    }

    func set(_ newHandler: (@Sendable (ConnectionEvent) -> Void)?) {
        let wrapped = newHandler.map { Callback($0) }
        handler.withLockedValue { $0 = wrapped }
    }

    func emit(_ event: @autoclosure () -> ConnectionEvent) {
        let event = event()
        metrics.record(event)
        handler.withLockedValue({ $0 })?(event)
    }
}

/// The open Engine.IO sessions by sid.
final class SessionRegistry: Sendable {
    private struct State {
        var sessions: [String: EngineSession] = [:]
        /// Open sessions per remote IP address.
        var perAddress: [String: Int] = [:]
        var stopping = false
    }

    /// Why a new session is not admitted.
    enum Refusal: Error, Sendable, Hashable {
        case tooManySessions
        case tooManyFromAddress

        /// The `message` of the 403 `{"code":4,…}` answer.
        var message: String {
            switch self {
            case .tooManySessions: "Too many sessions"
            case .tooManyFromAddress: "Too many sessions from this address"
            }
        }
    }

    /// The caps (``SocketIOServer/Configuration/maxSessions`` and
    /// ``SocketIOServer/Configuration/maxSessionsPerAddress``).
    struct Limits: Sendable {
        var total: Int?
        var perAddress: Int?
    }

    private let state = NIOLockedValueBox(State())

    /// Whether a session from `address` would be admitted now (a check before a WebSocket
    /// upgrade; ``add(_:limits:)`` decides for good).
    func admits(address: String?, limits: Limits) -> Refusal? {
        state.withLockedValue { Self.refusal(in: $0, address: address, limits: limits) }
    }

    private static func refusal(in state: State, address: String?, limits: Limits) -> Refusal? {
        if let total = limits.total, state.sessions.count >= total { return .tooManySessions }
        if let perAddress = limits.perAddress, let ip = address.map(Self.ip(of:)), state.perAddress[ip, default: 0] >= perAddress {
            return .tooManyFromAddress
        }
        return nil
    }

    /// Registers `session` unless a cap refuses it; `.stopping` once the server is stopping
    /// (registered: close the session).
    enum Admission: Sendable, Hashable {
        case admitted
        case stopping
        case refused(Refusal)
    }

    func add(_ session: EngineSession, limits: Limits = Limits()) -> Admission {
        state.withLockedValue { state in
            if let refusal = Self.refusal(in: state, address: session.request.address, limits: limits) { return .refused(refusal) }
            state.sessions[session.sid] = session
            if let address = session.request.address { state.perAddress[Self.ip(of: address), default: 0] += 1 }
            return state.stopping ? .stopping : .admitted
        }
    }

    /// Marks the server as stopping and returns every session registered now.
    func stop() -> [EngineSession] {
        state.withLockedValue { state in
            state.stopping = true
            return Array(state.sessions.values)
        }
    }

    func remove(_ sid: String) {
        state.withLockedValue { state in
            guard let session = state.sessions.removeValue(forKey: sid), let address = session.request.address else { return }
            let ip = Self.ip(of: address)
            let left = state.perAddress[ip, default: 1] - 1
            state.perAddress[ip] = left > 0 ? left : nil
        }
    }

    subscript(sid: String) -> EngineSession? {
        state.withLockedValue { $0.sessions[sid] }
    }

    var all: [EngineSession] {
        state.withLockedValue { Array($0.sessions.values) }
    }

    var count: Int { state.withLockedValue { $0.sessions.count } }

    /// `127.0.0.1` of `127.0.0.1:53122`, `::1` of `[::1]:53122`.
    static func ip(of address: String) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        if address.filter({ $0 == ":" }).count == 1, let colon = address.firstIndex(of: ":") {
            return String(address[..<colon])
        }
        return address
    }
}
