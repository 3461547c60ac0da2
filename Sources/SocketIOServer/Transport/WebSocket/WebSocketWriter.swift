import DequeModule
import NIOConcurrencyHelpers
import NIOCore

/// Writes frames to one WebSocket connection, with a bounded queue.
///
/// Senders on any thread append to a small queue; one job on the channel's event loop drains
/// it, writes every frame and flushes once, so a burst costs one event-loop hop and one syscall.
/// The queue counts bytes until NIO has handed them to the kernel: a client that stops reading
/// lets that count grow past ``limit`` and is disconnected instead of growing memory. Nobody
/// waits on a slow client: a send never blocks, it only queues or fails.
///
/// Frames are written at the front of the pipeline, as ready-made WebSocket bytes
/// (``WebSocketFraming``); ``ServerWebSocketHandler`` answers pings and the client's close.
final class WebSocketWriter: Sendable {
    private enum SendOutcome {
        case queued(schedule: Bool)
        case closed
        case overflow
    }

    private struct State {
        var pending: Deque<EngineFrame> = []
        /// Bytes queued here or written to the channel and not yet sent.
        var outstanding = 0
        var drainScheduled = false
        var closed = false
    }

    let channel: any Channel
    /// The most bytes that may wait for the client.
    let limit: Int
    private let state = NIOLockedValueBox(State())
    private let output: NIOLoopBound<RawOutputHandler>
    private let onOverflow: @Sendable () -> Void

    /// Installs the writer on an upgraded channel; call on the channel's event loop, once.
    ///
    /// - Parameter onOverflow: called once when the client fell `limit` bytes behind (the
    ///   connection is then being closed).
    static func install(
        on channel: any Channel,
        limit: Int,
        onOverflow: @escaping @Sendable () -> Void = {}
    ) throws -> WebSocketWriter {
        let handler = RawOutputHandler()
        try channel.pipeline.syncOperations.addHandler(handler, position: .first)
        return WebSocketWriter(channel: channel, handler: handler, limit: limit, onOverflow: onOverflow)
    }

    private init(channel: any Channel, handler: RawOutputHandler, limit: Int, onOverflow: @escaping @Sendable () -> Void) {
        self.channel = channel
        self.limit = limit
        self.output = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        self.onOverflow = onOverflow
    }

    var isClosed: Bool { state.withLockedValue { $0.closed } }

    /// How long the server waits for the client's answer to its close frame before it closes
    /// the connection itself (RFC 6455 §7.1.1: the server closes TCP once the handshake is
    /// done; a client that never answers is not waited for longer).
    static let closeHandshakeLimit: TimeAmount = .seconds(1)

    /// Whether this end has sent its close frame (read on the channel's event loop, by the
    /// inbound handler: a close from the client then completes the handshake).
    var closeSentOnLoop: Bool { output.value.closeSent }

    /// Queues frames and starts writing them; returns `false` when the connection is closed or
    /// the client is too far behind (then the connection is closed).
    @discardableResult
    func send(_ frames: some Collection<EngineFrame>) -> Bool {
        let (accepted, flush) = enqueue(frames)
        flush?.start()
        return accepted
    }

    /// What starts writing what ``enqueue(_:)`` queued (a drain on the event loop), or closes a
    /// connection whose client fell too far behind: run after the lock under which the frames
    /// were queued is released.
    struct Flush: Sendable {
        fileprivate let writer: WebSocketWriter
        fileprivate let overflowed: Bool

        func start() {
            if overflowed {
                // The client is not reading: a close frame would only queue behind the rest.
                writer.channel.close(promise: nil)
                writer.onOverflow()
            } else {
                writer.channel.eventLoop.execute { writer.drain() }
            }
        }
    }

    /// Queues frames without writing (no I/O: an owner may call it under its lock to keep its
    /// order); the ``Flush`` starts the writing — `nil` when a drain is already due. `accepted`
    /// is `false` when the connection is closed or the client is too far behind.
    func enqueue(_ frames: some Collection<EngineFrame>) -> (accepted: Bool, flush: Flush?) {
        guard !frames.isEmpty else { return (true, nil) }
        let size = frames.reduce(0) { $0 + $1.size }
        let outcome: SendOutcome = state.withLockedValue { state in
            guard !state.closed else { return .closed }
            guard state.outstanding + size <= limit else {
                state.closed = true
                state.pending.removeAll()
                return .overflow
            }
            state.pending.append(contentsOf: frames)
            state.outstanding += size
            defer { state.drainScheduled = true }
            return .queued(schedule: !state.drainScheduled)
        }
        switch outcome {
        case .queued(let schedule):
            return (true, schedule ? Flush(writer: self, overflowed: false) : nil)
        case .closed:
            return (false, nil)
        case .overflow:
            return (false, Flush(writer: self, overflowed: true))
        }
    }

    /// Writes what is queued, then `frames`, then a WebSocket close frame, and closes the
    /// connection. Later sends fail.
    func close(after frames: [EngineFrame] = [], code: UInt16 = WebSocketFraming.normalClosure) {
        let (wasClosed, pending): (Bool, [EngineFrame]) = state.withLockedValue { state in
            defer { state.closed = true; state.pending.removeAll() }
            // (`Array` of an empty deque writes to the shared empty-array storage: a race the
            // thread sanitizer reports when two connections close at once.)
            return (state.closed, state.pending.isEmpty ? [] : Array(state.pending))
        }
        guard !wasClosed else { return }
        closeChannel(code: code, frames: pending + frames)
    }

    private func drain() {
        let frames: Deque<EngineFrame> = state.withLockedValue { state in
            defer { state.pending.removeAll(keepingCapacity: true); state.drainScheduled = false }
            return state.closed ? [] : state.pending
        }
        guard !frames.isEmpty, let context = output.value.context else { return }
        let size = frames.reduce(0) { $0 + $1.size }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        for (index, frame) in frames.enumerated() {
            WebSocketFraming.write(frame, to: context, promise: index == frames.count - 1 ? promise : nil)
        }
        context.flush()
        promise.futureResult.whenComplete { result in
            self.state.withLockedValue { state in
                state.outstanding -= size
                // A write that failed means the connection is gone: later sends say so instead
                // of queuing for nobody.
                if case .failure = result {
                    state.closed = true
                    state.pending.removeAll()
                }
            }
        }
    }

    private func closeChannel(code: UInt16, frames: [EngineFrame]) {
        let channel = self.channel
        let output = self.output
        channel.eventLoop.execute {
            guard let context = output.value.context else {
                channel.close(promise: nil)
                return
            }
            for frame in frames {
                WebSocketFraming.write(frame, to: context, promise: nil)
            }
            output.value.closeSent = true
            WebSocketFraming.writeClose(code: code, to: context, promise: nil)
            context.flush()
            // The client answers with its close (ServerWebSocketHandler then closes at once), or
            // the connection is closed here.
            channel.eventLoop.scheduleTask(in: Self.closeHandshakeLimit) { channel.close(promise: nil) }
        }
    }
}

/// Sits first in the pipeline so its context writes raw bytes straight to the socket.
final class RawOutputHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private(set) var context: ChannelHandlerContext?
    /// Set once the server's close frame was written.
    var closeSent = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }
}

/// Server-side WebSocket framing (RFC 6455 §5.2): FIN set, no mask, 7/16/64-bit lengths.
enum WebSocketFraming {
    static let normalClosure: UInt16 = 1000

    static func header(opcode: UInt8, length: Int) -> ByteBuffer {
        var header = ByteBuffer()
        header.reserveCapacity(10)
        header.writeInteger(0x80 | opcode)
        switch length {
        case ..<126:
            header.writeInteger(UInt8(length))
        case ..<65536:
            header.writeInteger(UInt8(126))
            header.writeInteger(UInt16(length))
        default:
            header.writeInteger(UInt8(127))
            header.writeInteger(UInt64(length))
        }
        return header
    }

    static func write(_ frame: EngineFrame, to context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let opcode: UInt8 = frame.kind == .text ? 0x1 : 0x2
        let length = frame.bytes.readableBytes
        if length <= 256 {
            // Small frames: one buffer, one iovec.
            var buffer = header(opcode: opcode, length: length)
            var bytes = frame.bytes
            buffer.writeBuffer(&bytes)
            context.write(NIOAny(buffer), promise: promise)
        } else {
            // Large frames: the payload buffer is shared (broadcasts), written as it is.
            context.write(NIOAny(header(opcode: opcode, length: length)), promise: nil)
            context.write(NIOAny(frame.bytes), promise: promise)
        }
    }

    static func writeClose(code: UInt16, to context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        var buffer = header(opcode: 0x8, length: 2)
        buffer.writeInteger(code)
        context.write(NIOAny(buffer), promise: promise)
    }
}
