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

    /// The Engine.IO session timing from the configuration.
    var timing: EngineTiming {
        EngineTiming(
            pingInterval: configuration.pingInterval,
            pingTimeout: configuration.pingTimeout,
            upgradeTimeout: configuration.upgradeTimeout,
            lingerTimeout: configuration.pingTimeout
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
            pingInterval: Self.milliseconds(configuration.pingInterval),
            pingTimeout: Self.milliseconds(configuration.pingTimeout),
            maxPayload: configuration.maxPayload
        )
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// The app's ``ConnectionEvent`` listener, settable at any time.
final class ConnectionEventHook: Sendable {
    private let handler = NIOLockedValueBox<(@Sendable (ConnectionEvent) -> Void)?>(nil)

    func set(_ newHandler: (@Sendable (ConnectionEvent) -> Void)?) {
        handler.withLockedValue { $0 = newHandler }
    }

    func emit(_ event: @autoclosure () -> ConnectionEvent) {
        guard let handler = handler.withLockedValue({ $0 }) else { return }
        handler(event())
    }
}

/// The open Engine.IO sessions by sid.
final class SessionRegistry: Sendable {
    private struct State {
        var sessions: [String: EngineSession] = [:]
        var stopping = false
    }

    private let state = NIOLockedValueBox(State())

    /// Registers `session`; returns `false` once the server is stopping (close the session).
    @discardableResult
    func add(_ session: EngineSession) -> Bool {
        state.withLockedValue { state in
            state.sessions[session.sid] = session
            return !state.stopping
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
        _ = state.withLockedValue { $0.sessions.removeValue(forKey: sid) }
    }

    subscript(sid: String) -> EngineSession? {
        state.withLockedValue { $0.sessions[sid] }
    }

    var all: [EngineSession] {
        state.withLockedValue { Array($0.sessions.values) }
    }

    var count: Int { state.withLockedValue { $0.sessions.count } }
}
