import SwitchboardCore
import NIOConcurrencyHelpers

/// Hands one connection's messages, in order, to an async consumer (an Engine.IO session).
///
/// A task runs only while there is something to hand over, and ends when it is done: an idle
/// connection holds no task and no task stack. Everything the consumer gets — the opening, each
/// message, the end — runs in that task, never on the connection's event loop (the session's
/// work and the application's handlers must not hold up the loop's other connections). Reading
/// pauses while too many messages wait (``InboundBacklog``).
final class InboundPump: WebSocketInbound {
    private struct State {
        var backlog = InboundBacklog()
        var running = false
        /// How the connection ended, kept until the messages before it are delivered.
        var end: EngineCloseReason?
        var finished = false
    }

    private enum Next {
        case message(WebSocketMessage, resume: Bool)
        case end(EngineCloseReason)
        case idle
    }

    private let state = NIOLockedValueBox(State())
    private let reading: ReadSwitch
    private let executor: (any TaskExecutor)?
    private let deliver: @Sendable (WebSocketMessage) async -> Void
    private let finish: @Sendable (EngineCloseReason) -> Void

    /// - Parameters:
    ///   - reading: pauses and resumes the connection's reading.
    ///   - executor: where the delivering task runs (the connection's event loop when the
    ///     server runs handlers there); the global executor when `nil`.
    ///   - deliver: gets each message, one at a time.
    ///   - finish: called once, after the last message was delivered.
    init(
        reading: ReadSwitch,
        executor: (any TaskExecutor)?,
        deliver: @escaping @Sendable (WebSocketMessage) async -> Void,
        finish: @escaping @Sendable (EngineCloseReason) -> Void
    ) {
        self.reading = reading
        self.executor = executor
        self.deliver = deliver
        self.finish = finish
    }

    /// Runs `opening` before any message or the end is handed over (call once, before the
    /// connection's handler can receive anything).
    func start(opening: @escaping @Sendable () async -> Void) {
        state.withLockedValue { $0.running = true }
        run(first: opening)
    }

    func received(_ message: WebSocketMessage) {
        let (start, pause): (Bool, Bool) = state.withLockedValue { state in
            guard !state.finished, state.end == nil else { return (false, false) }
            let pause = state.backlog.push(message)
            defer { state.running = true }
            return (!state.running, pause)
        }
        if pause { reading.set(false) }
        if start { run() }
    }

    func ended(_ reason: EngineCloseReason) {
        let start: Bool = state.withLockedValue { state in
            guard !state.finished, state.end == nil else { return false }
            state.end = reason
            defer { state.running = true }
            return !state.running
        }
        if start { run() }
    }

    private func run(first: (@Sendable () async -> Void)? = nil) {
        if let executor {
            Task(executorPreference: executor) {
                await first?()
                await self.drain()
            }
        } else {
            Task {
                await first?()
                await self.drain()
            }
        }
    }

    private func drain() async {
        while true {
            let next: Next = state.withLockedValue { state in
                if let (message, resume) = state.backlog.pop() { return .message(message, resume: resume) }
                state.running = false
                if let end = state.end, !state.finished {
                    state.finished = true
                    return .end(end)
                }
                return .idle
            }
            switch next {
            case .message(let message, let resume):
                if resume { reading.set(true) }
                await deliver(message)
            case .end(let reason):
                finish(reason)
                return
            case .idle:
                return
            }
        }
    }
}
