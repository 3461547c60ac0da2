import NIOConcurrencyHelpers
import NIOCore

/// The connections that have not yet sent a complete request head.
///
/// Until a connection's first head is complete, Hummingbird's child channel waits for its HTTP
/// upgrade negotiation on a future that task cancellation cannot reach, so a connection that
/// sends nothing (an HTTP client's pooled connection whose request was cancelled, a port scan)
/// or never finishes its head would hold ``SocketIOServer/stop()`` forever and pile up idle.
/// Each is closed when its ``SocketIOServer/Configuration/requestHeadTimeout`` passes, and all
/// of them when the server stops.
final class UnfinishedRequests: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// Connections this server closed on purpose and whose handling has not finished yet.
        var closedOnPurpose: Set<ObjectIdentifier> = []
        var stopping = false
    }

    private let state = NIOLockedValueBox(State())

    /// Tracks `channel`; returns `false` when the server is stopping (close it with ``close(_:)``).
    func add(_ channel: any Channel) -> Bool {
        state.withLockedValue { state in
            guard !state.stopping else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    /// Closes a connection on purpose (a late head, or the server stopping).
    func close(_ channel: any Channel) {
        state.withLockedValue { state in
            state.channels.removeValue(forKey: ObjectIdentifier(channel))
            state.closedOnPurpose.insert(ObjectIdentifier(channel))
        }
        channel.close(promise: nil)
    }

    /// Whether the server closed `channel` on purpose.
    func wasClosedOnPurpose(_ id: ObjectIdentifier) -> Bool {
        state.withLockedValue { $0.closedOnPurpose.contains(id) }
    }

    /// The connection's handling finished: forget it.
    func finished(_ id: ObjectIdentifier) {
        _ = state.withLockedValue { $0.closedOnPurpose.remove(id) }
    }

    func remove(_ channel: any Channel) {
        _ = state.withLockedValue { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    /// Closes every tracked connection, and from now on every new one.
    func closeAll() {
        let channels = state.withLockedValue { state in
            state.stopping = true
            defer { state.channels = [:] }
            for id in state.channels.keys { state.closedOnPurpose.insert(id) }
            return Array(state.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }
}

/// First in a new connection's pipeline: passes bytes on until the first request head is complete
/// (the blank line after its header fields), then removes itself; closes the connection if that
/// takes longer than `timeout`.
final class RequestHeadGuardHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private let unfinished: UnfinishedRequests
    private var deadline: Scheduled<Void>?
    /// How much of `\r\n\r\n` the bytes so far end with.
    private var matched = 0
    private var done = false

    init(timeout: TimeAmount, unfinished: UnfinishedRequests) {
        self.timeout = timeout
        self.unfinished = unfinished
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        guard unfinished.add(channel) else {
            unfinished.close(channel)
            return
        }
        deadline = context.eventLoop.scheduleTask(in: timeout) { [unfinished] in
            unfinished.close(channel)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context.channel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return context.fireChannelRead(data) }
        let bytes = unwrapInboundIn(data)
        if Self.completesHead(bytes.readableBytesView, matched: &matched) {
            finish(context.channel)
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context.channel)
        context.fireChannelInactive()
    }

    private func finish(_ channel: any Channel) {
        guard !done else { return }
        done = true
        deadline?.cancel()
        deadline = nil
        unfinished.remove(channel)
    }

    /// Feeds `bytes` into a search for `\r\n\r\n`; `matched` carries a partial match across reads.
    static func completesHead(_ bytes: some Sequence<UInt8>, matched: inout Int) -> Bool {
        let terminator: [UInt8] = [13, 10, 13, 10]
        for byte in bytes {
            if byte == terminator[matched] {
                matched += 1
                if matched == terminator.count { return true }
            } else {
                matched = byte == 13 ? 1 : 0
            }
        }
        return false
    }
}
