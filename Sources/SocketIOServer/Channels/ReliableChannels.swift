import Logging
import NIOConcurrencyHelpers
import NIOPosix
import SocketIOProtocol
import SwitchboardCore

/// The server side of failover channels (SPEC.md part E): reliable channels served over both a
/// Socket.IO namespace (the `envelope` event, one envelope as its argument) and plain WebSocket
/// connections (one envelope per text message). A client's channel keeps its sequence state
/// while the client moves from one transport to the other and back; the application sees one
/// ``ReliableChannel`` per channel id.
///
/// ```swift
/// let channels = ReliableChannels(server: server)            // serves the /channel namespace
/// channels.onChannel { channel in
///     channel.onRequest("echo") { payload in [payload] }
///     channel.on("note") { payload in print(payload) }
/// }
/// server.onPlainWebSocket { connection in try await channels.serve(connection) }
/// ```
///
/// The channel protocol, on both transports: the client sends `resume` (channel id, what it has
/// delivered); the server answers `resumed` (what it has delivered) and sends again what the
/// client lacks; both sides then number `event`, `request` and `reply` envelopes and acknowledge
/// them cumulatively with `ack`. A resume on a new transport closes the old one. A channel no
/// transport carries expires after `expiry`; a resume for it gets an `error` saying so, and the
/// client starts a new channel. At most `maxChannels` are held: when that many are, a new channel
/// takes the place of the one no transport has carried for the longest, and only when every one
/// is carried is a new channel refused (`error`, then close).
/// Bad input — a malformed envelope, a number out of sequence, an acknowledgement of what was
/// never sent — gets an `error` envelope and closes that transport; other channels carry on.
///
/// Flow control: a transport's reader handles acknowledgements and resumes at once and queues
/// events and requests for one handler task per transport, which runs them in order; a message
/// is acknowledged once its handler has returned. A channel's handlers run one at a time also
/// across a move to another transport (the new one's task waits for the old one's handler). So a client can have at most its window of
/// messages waiting here, and a handler that waits for room to answer
/// (``ReliableChannel/send(_:_:waitingUpTo:)``) never holds up the acknowledgements that make
/// the room.
///
/// The rules live in `ReliableChannelsStateMachine`: each input is one transition under the
/// lock, and what it returns — writing a link's outbox (one drainer at a time, so envelopes leave
/// in the order the transitions queued them), closing a link, waking senders, arming a timer,
/// calling the app — is done after the lock is released.
public final class ReliableChannels: Sendable {
    /// The namespace that carries channels over Socket.IO.
    public let namespace: String
    /// How long to wait before acknowledging fewer than `ackEvery` messages.
    public let ackDelay: Duration
    /// How long the answer to a request waits for room in a full window before it is given up
    /// (and logged; the client's request then times out).
    public let replyTimeout: Duration
    /// Events and requests one transport may have waiting for their handlers (they are
    /// acknowledged once handled, so a client within its window never gets near it); past it
    /// the transport is refused.
    public let maxPendingMessages: Int
    let logger: Logger
    let timeline: Timeline

    /// A request the server made, waiting for the client's reply.
    struct RequestKey: Hashable, Sendable {
        let channel: String
        let id: Int
    }

    /// One transport connection that may carry a channel.
    struct Link: Sendable {
        let id: Int
        let send: @Sendable (Envelope) -> Bool
        let close: @Sendable () -> Void
        /// Events and requests for the link's handler task, in order.
        let inbox: AsyncStream<Envelope>.Continuation
    }

    typealias Machine = ReliableChannelsStateMachine<Link, ReliableChannel>

    private let state: NIOLockedValueBox<Machine>
    let requests = PendingReplies<RequestKey, [JSONValue], ChannelRequestError>()
    /// Senders waiting for room in a full window, by the token the machine gave them: woken when
    /// a transition says so (an acknowledgement, a resume) or by their deadline.
    let roomWaits = PendingReplies<Int, Void, ReliableChannelError>()
    /// Whose turn it is to hand each channel's next message to the app.
    let handlerTurns = HandlerTurns()

    /// Serves channels on `server`: over Socket.IO at `namespace` at once, over plain WebSocket
    /// through ``serve(_:)``. `maxChannels` bounds the channels held (see above), `expiry` how
    /// long one no transport carries waits for a resume, `window` how many messages each side
    /// may have unacknowledged.
    public init(
        server: SocketIOServer,
        namespace: String = "/channel",
        maxChannels: Int = 10_000,
        expiry: Duration = .seconds(120),
        window: Int = 1_000,
        ackDelay: Duration = .milliseconds(20),
        replyTimeout: Duration = .seconds(30),
        maxPendingMessages: Int = 4_096,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.namespace = namespace
        self.ackDelay = ackDelay
        self.replyTimeout = replyTimeout
        self.maxPendingMessages = max(maxPendingMessages, 1)
        self.logger = server.core.environment.logger
        // Acknowledgement timers and room deadlines as the event loops' timers with the real
        // clock (no task sleeping per timer), on the clock's own sleep with a test clock.
        self.timeline = Timeline(clock, scheduler: { delay, action in
            Timeline.eventLoopScheduler(MultiThreadedEventLoopGroup.singleton.next())(delay, action)
        })
        self.state = NIOLockedValueBox(Machine(table: ReliableChannelTable(maxChannels: maxChannels, expiry: expiry, window: window)))
        server.namespace(namespace).onConnection { [weak self] socket in
            self?.serve(socket)
        }
    }

    /// One input to the machine, under the lock; what it returns is done after. The channels it
    /// forgot (expired, or evicted from a full table) drop their handlers here: a handler that
    /// uses its own channel holds it, so a forgotten channel would otherwise never be freed.
    func transition<T>(_ input: (inout Machine) -> T) -> T {
        let (result, released) = state.withLockedValue { machine in
            let result = input(&machine)
            return (result, machine.takeReleased())
        }
        for channel in released.channels { channel.release() }
        wake(released.wake)
        return result
    }

    /// Called once per new channel, before any of its messages is handled: set its handlers here.
    public func onChannel(_ handler: @escaping @Sendable (ReliableChannel) -> Void) {
        transition { $0.setOnChannel(handler) }
    }

    /// The channel `id`, while the server holds it.
    public func channel(_ id: String) -> ReliableChannel? {
        transition { $0.channel(id) }
    }

    /// How many channels are held.
    public var count: Int { transition { $0.count } }

    // MARK: - Transports

    /// Carries channels over a plain WebSocket connection until it closes.
    public func serve(_ connection: PlainWebSocketConnection) async throws {
        let link = makeLink(send: { connection.send($0.text) }, close: { connection.close() })
        defer { detach(link) }
        for try await message in connection.messages {
            let envelope: Envelope
            do {
                envelope = try Envelope(webSocketText: message.textPayload)
            } catch {
                refuse(link, "\(error)")
                return
            }
            guard await receive(envelope, on: link) else { return }
        }
    }

    private func serve(_ socket: ServerSocket) {
        let (stream, continuation) = AsyncStream<Result<Envelope, EnvelopeError>>.makeStream()
        socket.on("envelope") { event in
            guard let json = event.items.first else {
                continuation.yield(.failure(.notAnObject))
                return
            }
            do throws(EnvelopeError) {
                continuation.yield(.success(try Envelope(json: json)))
            } catch {
                continuation.yield(.failure(error))
            }
        }
        socket.onDisconnect { _ in continuation.finish() }
        let link = makeLink(send: { socket.emit("envelope", $0.jsonValue) }, close: { socket.disconnect() })
        Task {
            defer { detach(link) }
            for await next in stream {
                switch next {
                case .success(let envelope):
                    guard await receive(envelope, on: link) else { return }
                case .failure(let error):
                    refuse(link, "\(error)")
                    return
                }
            }
        }
    }

    /// A link and its handler task, which runs the link's events and requests one at a time
    /// until the link is detached.
    private func makeLink(send: @escaping @Sendable (Envelope) -> Bool, close: @escaping @Sendable () -> Void) -> Link {
        // A client keeps at most its window unacknowledged, and acknowledgements wait for the
        // handlers: more than this queued is a client past any sane window.
        let (inbox, continuation) = AsyncStream<Envelope>.makeStream(bufferingPolicy: .bufferingOldest(maxPendingMessages))
        let link = transition { $0.attach { Link(id: $0, send: send, close: close, inbox: continuation) } }
        Task {
            for await envelope in inbox {
                guard await deliver(envelope, on: link) else { return }
            }
        }
        return link
    }

    private func detach(_ link: Link) {
        let now = timeline.now()
        let expiryTimer = transition { $0.detach(link.id, now: now) }
        link.inbox.finish()
        if let expiryTimer { armExpiryTimer(after: expiryTimer) }
    }

    /// Channels expire when due even if no client resumes anything meanwhile (expiry used to
    /// wait for the next resume, so an idle server kept every channel of its last busy minutes).
    private func armExpiryTimer(after delay: Duration) {
        _ = timeline.schedule(delay) { [weak self] in
            guard let self else { return }
            let now = timeline.now()
            if let next = transition({ $0.expiryTimerFired(now: now) }) { armExpiryTimer(after: next) }
        }
    }

    /// Tells the client why and closes the transport (the channel waits for a resume). Written at
    /// once, not through the link's outbox: the link is done.
    func refuse(_ link: Link, _ message: String) {
        logger.debug("closing a channel transport", metadata: ["socketio.reason": "\(message)"])
        _ = link.send(.error(id: nil, message: message))
        link.close()
    }

    /// Writes `link`'s outbox when a transition made this caller its drainer: batch by batch,
    /// outside the lock, until the machine says nothing is left. Whatever other callers queue
    /// meanwhile goes out here, after what was queued before it.
    func drain(_ link: Link?) {
        guard let link else { return }
        while let batch = transition({ $0.takeOutbound(from: link.id) }) {
            for envelope in batch { _ = link.send(envelope) }
        }
    }

    /// Wakes the senders a transition found room for.
    func wake(_ tokens: [Int]) {
        for token in tokens { roomWaits.settle(token, with: .success(())) }
    }

    /// Acknowledges what channel `id` delivered meanwhile, `ackDelay` from now.
    func armAckTimer(_ id: String) {
        _ = timeline.schedule(ackDelay) { [weak self] in
            guard let self else { return }
            drain(transition { $0.ackTimerFired(id) })
        }
    }
}
