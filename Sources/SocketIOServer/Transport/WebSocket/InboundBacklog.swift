import SwitchboardCore
import DequeModule
import NIOCore

/// Messages read from a connection and not yet taken by their consumer, and whether the
/// connection should go on reading: it stops at ``pauseAt`` waiting messages (the client's
/// writes then back up into its socket) and reads again at ``resumeAt``.
struct InboundBacklog {
    static let pauseAt = 256
    static let resumeAt = 64

    private var messages: Deque<WebSocketMessage> = []
    private(set) var paused = false

    var isEmpty: Bool { messages.isEmpty }
    var count: Int { messages.count }

    /// Queues `message`; `true` when reading must stop now.
    mutating func push(_ message: WebSocketMessage) -> Bool {
        messages.append(message)
        guard !paused, messages.count >= Self.pauseAt else { return false }
        paused = true
        return true
    }

    /// The oldest message, and whether reading must start again now.
    mutating func pop() -> (message: WebSocketMessage, resume: Bool)? {
        guard let message = messages.popFirst() else { return nil }
        guard paused, messages.count <= Self.resumeAt else { return (message, false) }
        paused = false
        return (message, true)
    }
}

/// Turns a connection's reading off and on.
struct ReadSwitch: Sendable {
    let set: @Sendable (_ reading: Bool) -> Void

    /// Through the channel's `autoRead` option (from any thread).
    static func autoRead(of channel: any Channel) -> ReadSwitch {
        ReadSwitch { reading in channel.setOption(ChannelOptions.autoRead, value: reading).whenComplete { _ in } }
    }
}
