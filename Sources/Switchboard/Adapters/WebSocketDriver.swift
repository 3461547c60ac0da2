public import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import SocketIOProtocol
import SwitchboardCore
import WebSocketClient

/// A ``ConnectionDriver`` over one plain WebSocket, speaking the JSON `Envelope`: `send` is an
/// `event` envelope, `request` a `request` envelope answered by a `reply` (or `error`) with the
/// same id, and every `event` envelope the server sends becomes ``DriverEvent/event(_:_:)``.
///
/// ```swift
/// let driver = WebSocketDriver(url: URL(string: "ws://127.0.0.1:3000/ws")!)
/// try await driver.open { event in print(event) }
/// try await driver.send("chat", ["text": "hi"])
/// let reply = try await driver.request("echo", "hello", timeout: .seconds(5))  // reply.value == "hello"
/// await driver.close()
/// ```
///
/// When the server or the network ends the connection, the driver reports
/// ``DriverEvent/closed(reason:)`` once and fails the requests in flight with
/// ``WebSocketDriverError/closed(reason:)``; then it can be opened again. A message from the
/// server that is not a valid envelope (or a binary message) breaks the protocol: the driver
/// closes the connection (WebSocket status 1002 or 1003) and reports it the same way. Requests
/// *from* the server get an `error` envelope: this driver answers none. Every error thrown is a
/// ``WebSocketDriverError``, or `CancellationError` when the calling task is cancelled.
public final class WebSocketDriver: ConnectionDriver {
    /// The server's WebSocket URL (`ws://` or `wss://`; `http`/`https` are read as `ws`/`wss`).
    public let url: URL
    /// How the driver connects.
    public let options: Options

    let logger: Logger
    let inner = NIOLockedValueBox(Inner())
    /// `request` callers waiting for their reply, by request id.
    let requests = PendingReplies<Int, Response, RequestFailure>()
    /// The options' clock as a timeline (request deadlines).
    let timeline: Timeline
    /// When set, every envelope the server sends goes here as it is, uninterpreted (a failover
    /// link: the channel reads sequence numbers, acknowledgements and resumes itself).
    let envelopeTap: (@Sendable (Envelope) -> Void)?

    struct Inner {
        var machine = WebSocketDriverStateMachine()
        /// The current connection (opening or open).
        var channel: WebSocketClientChannel?
        var opener: CheckedContinuation<Void, any Error>?
        var onEvent: (@Sendable (DriverEvent) -> Void)?
    }

    /// What a transition hands over to be resumed, failed or closed after the lock.
    struct Teardown {
        var channel: WebSocketClientChannel?
        var opener: CheckedContinuation<Void, any Error>?
        var requestIDs: [Int] = []
        var onEvent: (@Sendable (DriverEvent) -> Void)?
    }

    /// A driver for the WebSocket at `url`; nothing connects until ``open(onEvent:)``, which also
    /// reports an unusable URL (``WebSocketDriverError/invalidURL(_:)``).
    public convenience init(url: URL, options: Options = Options()) {
        self.init(url: url, options: options, envelopeTap: nil)
    }

    /// A driver that hands every envelope to `envelopeTap` instead of reading it.
    init(url: URL, options: Options, envelopeTap: (@Sendable (Envelope) -> Void)?) {
        self.url = url
        self.options = options
        self.envelopeTap = envelopeTap
        self.timeline = Timeline(options.clock)
        var logger = options.logger
        logger[metadataKey: "switchboard.url"] = "\(url.absoluteString)"
        self.logger = logger
    }

    deinit {
        inner.withLockedValue { $0.channel }?.close()
    }

    /// `"websocket"` while the connection is open, else `nil`.
    public var transportName: String? {
        inner.withLockedValue { inner in
            guard case .open = inner.machine.state else { return nil }
            return "websocket"
        }
    }

    /// Opens the WebSocket and returns once it carries messages.
    ///
    /// - Parameter onEvent: hears every event the server sends and, once, the close when the
    ///   connection ends without ``close()``; called on a network thread, never under a lock.
    /// - Throws: ``WebSocketDriverError/invalidURL(_:)``, ``WebSocketDriverError/invalidHeader(_:)``,
    ///   ``WebSocketDriverError/alreadyOpen``,
    ///   ``WebSocketDriverError/cannotOpen(url:reason:)``,
    ///   ``WebSocketDriverError/openTimedOut(url:after:)``, ``WebSocketDriverError/closed(reason:)``
    ///   (``close()`` was called meanwhile), `CancellationError`.
    public func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
        let configuration = try channelConfiguration()
        let generation = CancellationTarget<Int>()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let started = inner.withLockedValue { inner -> (WebSocketClientChannel, Int)? in
                    switch inner.machine.open() {
                    case .refuse:
                        return nil
                    case .connect(let current):
                        let channel = WebSocketClientChannel(configuration: configuration) { [weak self] event in
                            self?.handle(event, from: current)
                        }
                        inner.channel = channel
                        inner.opener = continuation
                        inner.onEvent = onEvent
                        return (channel, current)
                    }
                }
                guard let started else {
                    continuation.resume(throwing: WebSocketDriverError.alreadyOpen)
                    return
                }
                let (channel, current) = started
                logger.debug("opening WebSocket")
                channel.connect()
                if generation.register(current) { cancelOpen(generation: current) }
            }
        } onCancel: {
            if let current = generation.cancel() { cancelOpen(generation: current) }
        }
    }

    /// Closes the WebSocket (a normal closure) and returns once it is closed; requests in flight
    /// fail with ``WebSocketDriverError/closed(reason:)``. No ``DriverEvent/closed(reason:)``
    /// follows. Does nothing when not open.
    public func close() async {
        let (action, teardown) = inner.withLockedValue { inner -> (WebSocketDriverStateMachine.CloseAction, Teardown) in
            let action = inner.machine.close()
            switch action {
            case .none:
                return (action, Teardown())
            case .cancelOpen:
                return (action, Teardown(channel: inner.takeChannel(), opener: inner.takeOpener()))
            case .close(let ids):
                return (action, Teardown(channel: inner.takeChannel(), requestIDs: ids))
            }
        }
        switch action {
        case .none:
            return
        case .cancelOpen:
            teardown.opener?.resume(throwing: WebSocketDriverError.closed(reason: "the driver was closed while opening"))
        case .close:
            requests.fail(teardown.requestIDs, with: .closed("the driver was closed"))
        }
        logger.debug("closing WebSocket")
        teardown.channel?.close()
        await teardown.channel?.waitUntilClosed()
    }

    private func cancelOpen(generation: Int) {
        let (channel, opener) = inner.withLockedValue { inner -> (WebSocketClientChannel?, CheckedContinuation<Void, any Error>?) in
            guard inner.machine.cancelOpening(generation: generation) else { return (nil, nil) }
            return (inner.takeChannel(), inner.takeOpener())
        }
        channel?.abort()
        opener?.resume(throwing: CancellationError())
    }

    // MARK: - Channel events

    private func handle(_ event: WebSocketClientChannel.Event, from generation: Int) {
        switch event {
        case .opened:
            let opener = inner.withLockedValue { inner in
                inner.machine.channelOpened(generation: generation) == .resumeOpen ? inner.takeOpener() : nil
            }
            if opener != nil { logger.debug("WebSocket open") }
            opener?.resume()
        case .message(let message):
            receive(message, from: generation)
        case .ended(let end):
            let openError: WebSocketDriverError = switch end {
            case .failed(.openTimedOut): .openTimedOut(url: url.absoluteString, after: options.connectTimeout)
            case .failed, .closed: .cannotOpen(url: url.absoluteString, reason: end.description)
            }
            ended(generation, reason: end.description, openError: openError)
        }
    }

    /// Connection `generation` is over: `open` fails, or (once open) the close is reported and
    /// the requests in flight fail.
    func ended(_ generation: Int, reason: String, openError: WebSocketDriverError) {
        let (action, teardown) = inner.withLockedValue { inner -> (WebSocketDriverStateMachine.EndAction, Teardown) in
            let action = inner.machine.channelEnded(generation: generation)
            switch action {
            case .ignore:
                return (action, Teardown())
            case .failOpen:
                _ = inner.takeChannel()
                inner.onEvent = nil
                return (action, Teardown(opener: inner.takeOpener()))
            case .reportClosed(let ids):
                _ = inner.takeChannel()
                defer { inner.onEvent = nil }
                return (action, Teardown(requestIDs: ids, onEvent: inner.onEvent))
            }
        }
        switch action {
        case .ignore:
            return
        case .failOpen:
            logger.debug("WebSocket did not open", metadata: ["switchboard.reason": "\(reason)"])
            teardown.opener?.resume(throwing: openError)
        case .reportClosed:
            logger.info("WebSocket closed", metadata: ["switchboard.reason": "\(reason)"])
            teardown.onEvent?(.closed(reason: reason))
            requests.fail(teardown.requestIDs, with: .closed(reason))
        }
    }

    /// The channel configuration for ``url``, or ``WebSocketDriverError/invalidURL(_:)``.
    private func channelConfiguration() throws(WebSocketDriverError) -> WebSocketClientChannel.Configuration {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let address = ServerAddress(components) else {
            throw .invalidURL(url.absoluteString)
        }
        if let problem = HTTPHeaderField.problem(in: options.headers) { throw .invalidHeader(problem) }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        // The whole opening is bounded by `openTimeout`; the TCP connect gets a second more so
        // that a slow connect always ends as `openTimedOut`, never as a race between the two.
        // Added as Durations: TimeAmount's `+` traps where a long timeout saturated it.
        var configuration = WebSocketClientChannel.Configuration(
            address: address, target: target,
            headers: options.headers.map { ($0.name, $0.value) }, maxMessageSize: options.maxMessageSize,
            trustRoots: options.trustRoots, connectTimeout: TimeAmount(options.connectTimeout + .seconds(1)),
            openTimeout: TimeAmount(options.connectTimeout)
        )
        configuration.network = options.network
        return configuration
    }
}

extension WebSocketDriver.Inner {
    mutating func takeChannel() -> WebSocketClientChannel? {
        defer { channel = nil }
        return channel
    }

    mutating func takeOpener() -> CheckedContinuation<Void, any Error>? {
        defer { opener = nil }
        return opener
    }
}
