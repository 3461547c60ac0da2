import DequeModule
import NIOWebSocket
import SwitchboardCore

/// What a ``WebSocketClientChannel`` still has to write, in order: messages, fences and the close.
///
/// A **fence** holds everything after it until the peer has read everything before it: the
/// channel writes a ping after the messages before the fence and writes nothing more until the
/// matching pong comes back (or the fence times out). A server that handles each read as a unit,
/// such as socket.io's Node server, which dispatches events on the next tick and drops those whose
/// socket disconnected in the same read, then sees a namespace DISCONNECT written after a fence in
/// a later read than the events written before it.
///
/// A value type: the channel runs ``takeWritable()`` on its event loop and writes what it returns.
struct WebSocketOutbox {
    enum Item {
        case message(WebSocketMessage)
        case fence
        case close(WebSocketErrorCode)
    }

    /// What to write now, in this order: the messages, then a ping carrying `ping` (a fence), or
    /// the close frame.
    struct Write {
        var messages: [WebSocketMessage] = []
        var ping: UInt64?
        var close: WebSocketErrorCode?
    }

    private var queue = Deque<Item>()
    /// The token of the ping whose pong releases the queue.
    private(set) var awaitingPong: UInt64?
    private var nextToken: UInt64 = 0

    var isEmpty: Bool { queue.isEmpty }

    mutating func append(_ item: Item) {
        queue.append(item)
    }

    mutating func append(messages: some Sequence<WebSocketMessage>) {
        for message in messages { queue.append(.message(message)) }
    }

    /// Takes everything that may be written now: nothing while a fence waits for its pong.
    mutating func takeWritable() -> Write {
        var write = Write()
        guard awaitingPong == nil else { return write }
        while let item = queue.popFirst() {
            switch item {
            case .message(let message):
                write.messages.append(message)
            case .fence:
                nextToken &+= 1
                awaitingPong = nextToken
                write.ping = nextToken
                return write
            case .close(let code):
                write.close = code
                queue.removeAll()
                return write
            }
        }
        return write
    }

    /// A pong (or the fence's timeout) for `token`: returns whether it released the queue.
    mutating func release(token: UInt64) -> Bool {
        guard awaitingPong == token else { return false }
        awaitingPong = nil
        return true
    }

    /// Drops every message (the connection is being aborted).
    mutating func removeAll() {
        queue.removeAll()
        awaitingPong = nil
    }
}
