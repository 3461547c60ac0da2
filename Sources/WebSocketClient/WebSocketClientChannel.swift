import NIOConcurrencyHelpers
package import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
package import NIOWebSocket
package import SwitchboardCore

/// One client WebSocket on swift-nio's own typed upgrader, carrying text and binary messages:
/// what Engine.IO's WebSocket transport and Switchboard's plain `WebSocketDriver` both ride on.
///
/// swift-nio's upgrader leaves the request headers to us, so the handshake carries exactly the
/// headers configured and no `Origin` (python-socketio refuses a foreign `Origin` with its default
/// CORS setting; socket.io's own clients send none). Client frames are masked as RFC 6455
/// requires; pings are answered; fragmented messages are joined up to the size limit.
///
/// It starts connecting on ``connect()`` and reports through its handler (see ``Event``): at most one
/// `opened`, then messages, then exactly one `ended`, in order, never under its lock. Sends made
/// before the upgrade completed wait and go first; sends from many threads are coalesced, so a
/// burst costs one event-loop hop and one flush, not one each.
///
/// ```swift
/// let channel = WebSocketClientChannel(configuration: .init(
///     host: "127.0.0.1", port: 3000, secure: false, target: "/ws", maxMessageSize: 1 << 20
/// )) { event in print(event) }
/// channel.connect()
/// channel.send(.text("hello"))
/// channel.close()
/// ```
package final class WebSocketClientChannel: Sendable {
    private struct State {
        /// The TCP channel as soon as it connects (to close it even mid-handshake).
        var raw: (any Channel)?
        /// The channel once the WebSocket upgrade completed; what is sent before waits in `outbox`.
        var channel: (any Channel)?
        /// Whether `close` or `abort` was called (later sends are dropped).
        var closing = false
        /// What waits to be written, and whether a drain on the event loop is already scheduled.
        var outbox = WebSocketOutbox()
        var drainScheduled = false
        var openTimeout: Scheduled<Void>?
        var fenceTimeout: Scheduled<Void>?
    }

    private let configuration: Configuration
    private let state = NIOLockedValueBox(State())
    private let reporter: WebSocketClientReporter

    /// A channel that reports to `handler` (see ``Event``); nothing happens until ``connect()``.
    package init(configuration: Configuration, handler: @escaping @Sendable (Event) -> Void) {
        self.configuration = configuration
        self.reporter = WebSocketClientReporter(handler)
    }

    /// Starts connecting (call once). A TLS setup failure is reported before it returns.
    package func connect() {
        let configuration = self.configuration
        let reporter = self.reporter
        let eventLoop = configuration.group.next()
        // The platform's bootstrap and TLS (TransportStack); everything above it is the same.
        let bootstrap: NIOClientTCPBootstrap
        do {
            bootstrap = try configuration.stack.bootstrap(for: configuration.address, trustRoots: configuration.trustRoots, on: eventLoop)
        } catch {
            reporter.end(.failed(.tlsSetup("\(error)")))
            return
        }
        // A connection takes a descriptor only while the process keeps a reserve free.
        let descriptors = configuration.descriptors
        if case .refused(let open, let limit, _) = descriptors.acquire() {
            reporter.end(.failed(.outOfDescriptors(open: open, limit: limit)))
            return
        }
        if let openTimeout = configuration.openTimeout {
            let scheduled = eventLoop.scheduleTask(in: openTimeout) { [self] in
                reporter.end(.failed(.openTimedOut))
                abort()
            }
            state.withLockedValue { $0.openTimeout = scheduled }
        }
        // TCP_NODELAY is on by default on both stacks (a `socketOption(.tcp_nodelay)` here set
        // SO_DEBUG instead — the same number at the socket level).
        bootstrap
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try self.configurePipeline(of: channel)
                }
            }
            .connect(host: configuration.address.host, port: configuration.address.port).whenComplete { [self] result in
            switch result {
            case .success(let connected):
                connected.closeFuture.whenComplete { [self] _ in
                    descriptors.release()
                    cancelOpenTimeout()
                    reporter.end(.closed(code: nil))
                }
                let closeNow = state.withLockedValue { state in
                    state.raw = connected
                    return state.closing
                }
                if closeNow { connected.close(promise: nil) }
            case .failure(let error):
                descriptors.release()
                cancelOpenTimeout()
                reporter.end(.failed(.cannotConnect(host: configuration.address.host, port: configuration.address.port, "\(error)")))
            }
        }
    }

    /// The HTTP upgrade and the WebSocket handlers, after whatever TLS the stack put in front.
    private func configurePipeline(of channel: any Channel) throws {
        let configuration = self.configuration
        let reporter = self.reporter
        let maxMessageSize = configuration.maxMessageSize
        let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
            maxFrameSize: WebSocketMessageAssembler.decoderFrameLimit(forMessagesUpTo: maxMessageSize),
            // The frame handler answers the decoder's errors itself (a close with the status, and
            // the end reported as the protocol violation it is, not as a clean close).
            enableAutomaticErrorHandling: false,
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(WebSocketClientFrameHandler(
                        maxMessageSize: maxMessageSize,
                        reporter: reporter,
                        onPong: { [weak self] data, channel in self?.pongReceived(data, on: channel) }
                    ))
                    return true
                }
            }
        )
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: configuration.address.hostHeader)
        for (name, value) in configuration.headers { headers.add(name: name, value: value) }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: configuration.target, headers: headers)
        let upgrade = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
            upgradeRequestHead: head,
            upgraders: [upgrader],
            // The result says whether the server switched protocols; a refusal is reported once
            // its body is read (UpgradeRefusalHandler).
            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) }
        )
        // Servers often send their first message in the same TCP read as the 101 response;
        // NIO drops such bytes unless told to forward them.
        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
        pipeline.leftOverBytesStrategy = .forwardBytes
        let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
        try UpgradeRefusalHandler.install(on: channel) { [weak channel] status, body in
            reporter.end(.failed(.upgradeRefused(status: status, body: body)))
            channel?.close(promise: nil)
        }
        upgraded.whenComplete { [self] result in
            switch result {
            case .success(true):
                upgradeCompleted(on: channel)
            case .success(false):
                return  // refused: reported by the UpgradeRefusalHandler
            case .failure(let error):
                reporter.end(.failed(.handshakeFailed("\(error)")))
                channel.close(promise: nil)
            }
        }
    }

    /// The WebSocket is up: what was sent meanwhile is written first, then sends go straight on.
    private func upgradeCompleted(on channel: any Channel) {
        let closing = state.withLockedValue { state in
            state.channel = channel
            if state.closing && state.outbox.isEmpty { return true }
            state.drainScheduled = true
            return false
        }
        cancelOpenTimeout()
        if closing {
            channel.close(promise: nil)
            return
        }
        reporter.opened()
        // Already on the event loop: written before any drain queued by a later send.
        drain(on: channel)
    }
}

extension WebSocketClientChannel {
    /// Sends one message (after the upgrade, if it is still under way); dropped once closing.
    package func send(_ message: WebSocketMessage) {
        send(CollectionOfOne(message))
    }

    /// Sends messages in order (after the upgrade, if it is still under way); dropped once closing.
    package func send(_ messages: some Collection<WebSocketMessage>) {
        enqueue { $0.append(messages: messages) }?.start()
    }

    /// Sends messages once the peer has read everything sent before them: a ping goes out after
    /// what is queued, and these messages (and everything after them, a close included) wait for
    /// its pong, at most ``Configuration/fenceTimeout``. See ``WebSocketOutbox``.
    package func sendAfterPeerRead(_ messages: some Collection<WebSocketMessage>) {
        enqueue(messages, afterPeerRead: true)?.start()
    }

    /// Queues messages like ``send(_:)`` (or ``sendAfterPeerRead(_:)``) without writing: the
    /// returned ``Drain`` writes them, started once the caller released the lock under which it
    /// queued them (so an owner keeps its order without I/O under its lock). `nil` when a drain
    /// is already due (it takes these too), before the upgrade, or once closing.
    package func enqueue(_ messages: some Collection<WebSocketMessage>, afterPeerRead: Bool) -> Drain? {
        enqueue { outbox in
            if afterPeerRead { outbox.append(.fence) }
            outbox.append(messages: messages)
        }
    }

    /// Writes what was queued, on the connection's event loop.
    package struct Drain: Sendable {
        let owner: WebSocketClientChannel
        let channel: any Channel

        /// Schedules the write on the event loop.
        package func start() {
            channel.eventLoop.execute { [owner, channel] in owner.drain(on: channel) }
        }
    }

    /// Ends the connection after what was already handed to `send` (fences included): a close
    /// frame with `code`, then the TCP close (at once when the upgrade has not completed).
    package func close(code: WebSocketErrorCode = .normalClosure) {
        let (channel, raw, drainNow) = state.withLockedValue { state -> ((any Channel)?, (any Channel)?, Bool) in
            guard !state.closing else { return (nil, nil, false) }
            state.closing = true
            guard let channel = state.channel else {
                state.outbox.removeAll()
                return (nil, state.raw, false)
            }
            state.outbox.append(.close(code))
            guard !state.drainScheduled else { return (channel, nil, false) }
            state.drainScheduled = true
            return (channel, nil, true)
        }
        guard let channel else {
            cancelOpenTimeout()
            raw?.close(promise: nil)
            return
        }
        if drainNow { channel.eventLoop.execute { [self] in drain(on: channel) } }
    }

    private func enqueue(_ add: (inout WebSocketOutbox) -> Void) -> Drain? {
        let channel = state.withLockedValue { state -> (any Channel)? in
            guard !state.closing else { return nil }
            add(&state.outbox)
            guard let channel = state.channel, !state.drainScheduled else { return nil }
            state.drainScheduled = true
            return channel
        }
        return channel.map { Drain(owner: self, channel: $0) }
    }

    /// Writes what the outbox lets through and flushes once; runs on the channel's event loop.
    fileprivate func drain(on channel: any Channel) {
        let write = state.withLockedValue { state in
            state.drainScheduled = false
            return state.outbox.takeWritable()
        }
        for message in write.messages {
            let frame: WebSocketFrame
            switch message {
            case .text(let text):
                frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(),
                                       data: channel.allocator.buffer(string: text))
            case .binary(let data):
                frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(),
                                       data: channel.allocator.buffer(bytes: data))
            }
            channel.write(frame, promise: nil)
        }
        if let token = write.ping {
            var data = channel.allocator.buffer(capacity: 8)
            data.writeInteger(token)
            channel.write(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: data), promise: nil)
            let timeout = channel.eventLoop.scheduleTask(in: configuration.fenceTimeout) { [self] in
                release(token: token, on: channel)
            }
            state.withLockedValue { $0.fenceTimeout = timeout }
        }
        if let code = write.close {
            var data = channel.allocator.buffer(capacity: 2)
            data.write(webSocketErrorCode: code)
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
            // The server answers with its close and closes TCP (RFC 6455 §7.1.1): the frame
            // handler closes on that answer; a server that never answers is not waited for longer.
            try? channel.pipeline.syncOperations.handler(type: WebSocketClientFrameHandler.self).closeSent = true
            channel.writeAndFlush(frame, promise: nil)
            channel.eventLoop.scheduleTask(in: configuration.closeHandshakeTimeout) { channel.close(promise: nil) }
            return
        }
        if !write.messages.isEmpty || write.ping != nil { channel.flush() }
    }

    /// A pong arrived (on the event loop): if it answers the fence's ping, write what it held.
    private func pongReceived(_ data: ByteBuffer, on channel: any Channel) {
        guard data.readableBytes == 8, let token = data.getInteger(at: data.readerIndex, as: UInt64.self) else { return }
        release(token: token, on: channel)
    }

    private func release(token: UInt64, on channel: any Channel) {
        let (released, timeout) = state.withLockedValue { state -> (Bool, Scheduled<Void>?) in
            guard state.outbox.release(token: token) else { return (false, nil) }
            defer { state.fenceTimeout = nil }
            state.drainScheduled = true
            return (true, state.fenceTimeout)
        }
        guard released else { return }
        timeout?.cancel()
        drain(on: channel)
    }

    /// Drops the connection without a close frame (after a protocol error, say).
    package func abort() {
        let (channel, raw) = beginClosing()
        (channel ?? raw)?.close(promise: nil)
    }

    private func beginClosing() -> ((any Channel)?, (any Channel)?) {
        let (channel, raw, fence) = state.withLockedValue { state in
            state.closing = true
            state.outbox.removeAll()
            defer { state.fenceTimeout = nil }
            return (state.channel, state.raw, state.fenceTimeout)
        }
        fence?.cancel()
        cancelOpenTimeout()
        return (channel, raw)
    }

    private func cancelOpenTimeout() {
        state.withLockedValue { state in
            defer { state.openTimeout = nil }
            return state.openTimeout
        }?.cancel()
    }

    /// The TCP channel once connected (for diagnostics and tests: its socket options). The
    /// upgraded channel (the same TCP channel, stored before `.opened` is reported) counts too,
    /// so this is never `nil` once `.opened` was seen, whatever order the bootstrap's connect
    /// callback and the upgrade run in.
    package var tcpChannel: (any Channel)? { state.withLockedValue { $0.channel ?? $0.raw } }

    /// Returns once the connection is closed (at once if it never opened).
    package func waitUntilClosed() async {
        guard let channel = state.withLockedValue({ $0.channel }) else { return }
        try? await channel.closeFuture.get()
    }
}
