import SwitchboardCore
import NIOConcurrencyHelpers

/// A connection's messages for one reader that pulls them (``PlainWebSocketMessages``);
/// reading pauses while too many wait unread (``InboundBacklog``).
final class MessageMailbox: WebSocketInbound {
    private struct State {
        var backlog = InboundBacklog()
        var ended = false
        var waiter: CheckedContinuation<WebSocketMessage?, Never>?
    }

    private enum Now {
        case message(WebSocketMessage, resume: Bool)
        case end
        case wait
    }

    private let state = NIOLockedValueBox(State())
    private let reading: ReadSwitch

    init(reading: ReadSwitch) {
        self.reading = reading
    }

    func received(_ message: WebSocketMessage) {
        let (waiter, pause): (CheckedContinuation<WebSocketMessage?, Never>?, Bool) = state.withLockedValue { state in
            guard !state.ended else { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            return (nil, state.backlog.push(message))
        }
        waiter?.resume(returning: message)
        if pause { reading.set(false) }
    }

    func ended(_ reason: EngineCloseReason) {
        let waiter: CheckedContinuation<WebSocketMessage?, Never>? = state.withLockedValue { state in
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next message; `nil` once the connection ended and every message was read, or when
    /// the reading task is cancelled.
    func next() async -> WebSocketMessage? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketMessage?, Never>) in
                let now: Now = state.withLockedValue { state in
                    if let (message, resume) = state.backlog.pop() { return .message(message, resume: resume) }
                    if state.ended || Task.isCancelled { return .end }
                    state.waiter = continuation
                    return .wait
                }
                switch now {
                case .message(let message, let resume):
                    if resume { reading.set(true) }
                    continuation.resume(returning: message)
                case .end:
                    continuation.resume(returning: nil)
                case .wait:
                    break
                }
            }
        } onCancel: {
            let waiter: CheckedContinuation<WebSocketMessage?, Never>? = state.withLockedValue { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
