import Logging
import NIOConcurrencyHelpers
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
/// transport carries expires after `expiry`; a resume for it is refused (`error`, then close).
/// Bad input — a malformed envelope, a number out of sequence, an acknowledgement of what was
/// never sent — gets an `error` envelope and closes that transport; other channels carry on.
///
/// Flow control: a transport's reader handles acknowledgements and resumes at once and queues
/// events and requests for one handler task per transport, which runs them in order; a message
/// is acknowledged once its handler has returned. So a client can have at most its window of
/// messages waiting here, and a handler that waits for room to answer
/// (``ReliableChannel/send(_:_:waitingUpTo:)``) never holds up the acknowledgements that make
/// the room.
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
    private let timeline: Timeline

    struct State: Sendable {
        var table: ReliableChannelTable<Envelope>
        var links: [Int: Link] = [:]
        var channels: [String: ReliableChannel] = [:]
        var nextLink = 0
        var ackTimers: Set<String> = []
        var onChannel: (@Sendable (ReliableChannel) -> Void)?
        /// Senders waiting for room in a channel's window, by channel and token.
        var roomWaiters: [String: [Int: CheckedContinuation<Void, Never>]] = [:]
        var nextWaiter = 0
        var nextRequestID = 0
    }

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

    private let state: NIOLockedValueBox<State>
    private let requests = PendingReplies<RequestKey, [JSONValue], ChannelRequestError>()

    /// Serves channels on `server`: over Socket.IO at `namespace` at once, over plain WebSocket
    /// through ``serve(_:)``.
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
        self.timeline = Timeline(clock)
        self.state = NIOLockedValueBox(State(table: ReliableChannelTable(maxChannels: maxChannels, expiry: expiry, window: window)))
        server.namespace(namespace).onConnection { [weak self] socket in
            self?.serve(socket)
        }
    }

    /// Called once per new channel, before any of its messages is handled: set its handlers here.
    public func onChannel(_ handler: @escaping @Sendable (ReliableChannel) -> Void) {
        state.withLockedValue { $0.onChannel = handler }
    }

    /// The channel `id`, while the server holds it.
    public func channel(_ id: String) -> ReliableChannel? {
        state.withLockedValue { $0.channels[id] }
    }

    /// How many channels are held.
    public var count: Int { state.withLockedValue { $0.table.channels.count } }

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
        let link = state.withLockedValue { state in
            state.nextLink += 1
            let link = Link(id: state.nextLink, send: send, close: close, inbox: continuation)
            state.links[link.id] = link
            return link
        }
        Task {
            for await envelope in inbox {
                guard await deliver(envelope, on: link) else { return }
            }
        }
        return link
    }

    private func detach(_ link: Link) {
        let now = timeline.now()
        state.withLockedValue { state in
            state.links.removeValue(forKey: link.id)
            state.table.detach(link.id, now: now)
        }
        link.inbox.finish()
    }

    /// Tells the client why and closes the transport (the channel waits for a resume).
    private func refuse(_ link: Link, _ message: String) {
        logger.debug("closing a channel transport", metadata: ["socketio.reason": "\(message)"])
        _ = link.send(.error(id: nil, message: message))
        link.close()
    }

    // MARK: - Inbound

    /// Handles one envelope from `link`; `false` when the link was closed for it.
    private func receive(_ envelope: Envelope, on link: Link) async -> Bool {
        switch envelope {
        case .resume(let id, let received):
            return resume(id, received: received, on: link)
        case .ack(let seq):
            let outcome: Result<[CheckedContinuation<Void, Never>], ReliableChannelError> = state.withLockedValue { state in
                guard let id = Self.channel(of: link, in: state) else { return .failure(.ackBeyondSent(seq: seq, lastSent: 0)) }
                do throws(ReliableChannelError) {
                    _ = try state.table.withChannel(id) { (channel) throws(ReliableChannelError) in try channel.sender.acknowledged(through: seq) }
                    // Room in the window: whoever waits for it tries again.
                    return .success(Array((state.roomWaiters.removeValue(forKey: id) ?? [:]).values))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .failure(let failure):
                refuse(link, "\(failure)")
                return false
            case .success(let waiters):
                for waiter in waiters { waiter.resume() }
                return true
            }
        case .event, .request, .reply:
            switch link.inbox.yield(envelope) {
            case .enqueued:
                return true
            case .dropped:
                refuse(link, "too many messages ahead of their acknowledgements")
                return false
            case .terminated:
                return false  // the handler task stopped: the link is closing
            @unknown default:
                return false
            }
        case .error(let requestID?, let message):
            // The client declines one of the server's requests.
            if let id = state.withLockedValue({ Self.channel(of: link, in: $0) }) {
                requests.settle(RequestKey(channel: id, id: requestID), with: .failure(.declined(message)))
            }
            return true
        case .error(nil, let message):
            logger.debug("the client reported an error", metadata: ["socketio.error": "\(message)"])
            return true
        case .resumed:
            refuse(link, "resumed is the server's to send")
            return false
        }
    }

    private func resume(_ id: String, received: UInt64, on link: Link) -> Bool {
        let now = timeline.now()
        typealias Resumed = (channel: ReliableChannel, isNew: Bool, previous: Link?, waiters: [CheckedContinuation<Void, Never>])
        let result: Result<Resumed, ReliableChannelTable<Envelope>.Refusal> = state.withLockedValue { state in
            do throws(ReliableChannelTable<Envelope>.Refusal) {
                let resumed = try state.table.resume(id, received: received, on: link.id, now: now)
                let isNew = state.channels[id] == nil
                let channel = state.channels[id] ?? ReliableChannel(id: id, hub: self)
                state.channels[id] = channel
                for expired in state.channels.keys where state.table.channels[expired] == nil {
                    state.channels.removeValue(forKey: expired)
                }
                // Under the lock, so nothing the app sends meanwhile overtakes the replay.
                _ = link.send(.resumed(channel: id, received: resumed.received))
                for (seq, message) in resumed.resend { _ = link.send(message.numbered(seq)) }
                let previous = resumed.previousAttachment.flatMap { state.links[$0] }
                // What the client says it received is acknowledged by the resume: room, perhaps.
                let waiters = Array((state.roomWaiters.removeValue(forKey: id) ?? [:]).values)
                return .success((channel, isNew, previous, waiters))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .failure(.unknownChannel(let id)):
            // The client may start a new channel on this same transport.
            logger.debug("resume of an unknown channel", metadata: ["socketio.channel": "\(id)"])
            _ = link.send(.error(id: nil, message: ReliableChannelTable<Envelope>.Refusal.unknownChannel(id).description))
            return true
        case .failure(let refusal):
            refuse(link, refusal.description)
            return false
        case .success(let (channel, isNew, previous, waiters)):
            for waiter in waiters { waiter.resume() }
            previous?.close()
            if isNew, let onChannel = state.withLockedValue({ $0.onChannel }) { onChannel(channel) }
            return true
        }
    }

    private func deliver(_ envelope: Envelope, on link: Link) async -> Bool {
        guard let seq = envelope.seq else {
            refuse(link, "a message on a channel needs its seq")
            return false
        }
        let outcome: Result<(String, ReliableReceiver.Action), ReliableChannelError>? = state.withLockedValue { state in
            guard let id = Self.channel(of: link, in: state) else { return nil }
            do throws(ReliableChannelError) {
                guard let action = try state.table.withChannel(id, { (channel) throws(ReliableChannelError) in try channel.receiver.received(seq) }) else {
                    return nil
                }
                return .success((id, action))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else {
            // Detached meanwhile (another transport took the channel over): stop quietly.
            guard state.withLockedValue({ $0.links[link.id] != nil }) else { return false }
            refuse(link, "resume a channel first")
            return false
        }
        let id: String
        let acknowledgement: (ack: UInt64?, startTimer: Bool)
        switch outcome {
        case .failure(let error):
            refuse(link, "\(error)")
            return false
        case .success(let (channelID, action)):
            switch action {
            case .duplicate(let ack):
                _ = link.send(.ack(seq: ack))
                return true
            case .deliver(let ack, let startTimer):
                id = channelID
                acknowledgement = (ack, startTimer)
            }
        }
        // Acknowledged once handled (flow control: see the type's notes).
        defer {
            if let ack = acknowledgement.ack { _ = link.send(.ack(seq: ack)) }
            if acknowledgement.startTimer { scheduleAck(id) }
        }
        guard let channel = state.withLockedValue({ $0.channels[id] }) else { return true }
        switch envelope {
        case .event(let name, let data, _):
            do {
                _ = try await channel.handler(for: name)?(data)
            } catch {
                // An event has no one to answer: the server's log says it failed.
                logger.warning("a channel event's handler failed", metadata: [
                    "socketio.channel": "\(id)", "socketio.event": "\(name)", "socketio.error": "\(error)",
                ])
            }
        case .request(let name, let data, let requestID, _):
            guard let handler = channel.handler(for: name) else {
                _ = link.send(.error(id: requestID, message: "no handler for \"\(name)\""))
                return true
            }
            do {
                let values = try await handler(data)
                do {
                    try await send(.reply(id: requestID, data: values), on: id, waitingUpTo: replyTimeout)
                } catch {
                    logger.warning("a channel request's reply was not sent", metadata: [
                        "socketio.channel": "\(id)", "socketio.event": "\(name)", "socketio.error": "\(error)",
                    ])
                }
            } catch {
                _ = link.send(.error(id: requestID, message: "\(error)"))
            }
        case .reply(let requestID, let values, _):
            requests.settle(RequestKey(channel: id, id: requestID), with: .success(values))
        case .error, .ack, .resume, .resumed:
            break
        }
        return true
    }

    private static func channel(of link: Link, in state: State) -> String? {
        state.table.channels.first { $0.value.attachment == link.id }?.key
    }

    private func scheduleAck(_ id: String) {
        let start = state.withLockedValue { $0.ackTimers.insert(id).inserted }
        guard start else { return }
        let delay = ackDelay
        Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard let self else { return }
            self.state.withLockedValue { state in
                state.ackTimers.remove(id)
                guard let seq = state.table.withChannel(id, { channel in channel.receiver.ackDue() }) ?? nil,
                      let attachment = state.table.channels[id]?.attachment, let link = state.links[attachment] else { return }
                _ = link.send(.ack(seq: seq))
            }
        }
    }

    // MARK: - Outbound

    /// Numbers `envelope` on channel `id` and sends it on the transport carrying the channel, if
    /// any (otherwise the next resume sends it).
    func send(_ envelope: Envelope, on id: String) throws(ReliableChannelError) {
        let failure: ReliableChannelError? = state.withLockedValue { state in
            do throws(ReliableChannelError) {
                let attachment = state.table.channels[id]?.attachment
                let numbered = try state.table.withChannel(id) { (channel) throws(ReliableChannelError) -> (UInt64, UInt64?) in
                    let seq = try channel.sender.send(envelope)
                    // Acknowledge what was delivered first (piggybacked), when it goes out now.
                    return (seq, attachment == nil ? nil : channel.receiver.ackDue())
                }
                guard let (seq, ack) = numbered else { return .channelGone }
                if let attachment, let link = state.links[attachment] {
                    if let ack { _ = link.send(.ack(seq: ack)) }
                    _ = link.send(envelope.numbered(seq))
                }
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// ``send(_:on:)``, waiting up to `timeout` for room when the window is full (the client's
    /// acknowledgements make it).
    func send(_ envelope: Envelope, on id: String, waitingUpTo timeout: Duration) async throws(ReliableChannelError) {
        let deadline = timeline.now() + timeout
        while true {
            do throws(ReliableChannelError) {
                try send(envelope, on: id)
                return
            } catch .windowFull(let window) {
                let remaining = deadline - timeline.now()
                guard remaining > .zero else { throw .windowFull(window: window) }
                await waitForRoom(on: id, upTo: remaining)
            }
        }
    }

    /// Sends a numbered request on channel `id` and waits up to `timeout` for the client's reply
    /// (which, numbered too, survives transport switches).
    func request(_ event: String, _ data: JSONValue, on id: String, timeout: Duration) async throws(ChannelRequestError) -> [JSONValue] {
        let requestID = state.withLockedValue { state in
            defer { state.nextRequestID += 1 }
            return state.nextRequestID
        }
        let key = RequestKey(channel: id, id: requestID)
        let deadline = PendingReplies<RequestKey, [JSONValue], ChannelRequestError>.Deadline(after: timeout, on: timeline) { _ in
            .timedOut(event: event, after: timeout)
        }
        let result: Result<[JSONValue], ChannelRequestError> = await withCheckedContinuation { continuation in
            requests.add(key, deadline: deadline) { continuation.resume(returning: $0) }
            do throws(ReliableChannelError) {
                try send(.request(name: event, data: data, id: requestID), on: id)
            } catch {
                requests.settle(key, with: .failure(.notSent(error)))
            }
        }
        return try result.get()
    }

    /// Returns when channel `id` has room in its window, it is gone, or `timeout` passed.
    private func waitForRoom(on id: String, upTo timeout: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let token: Int? = state.withLockedValue { state in
                // Checked under the lock that acknowledgements take: none slips in between.
                let full = state.table.withChannel(id) { $0.sender.unacknowledged.count >= $0.sender.window } ?? false
                guard full else { return nil }
                state.nextWaiter += 1
                state.roomWaiters[id, default: [:]][state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let token else {
                continuation.resume()
                return
            }
            Task {
                try? await timeline.sleep(timeout)
                let waiter = state.withLockedValue { $0.roomWaiters[id]?.removeValue(forKey: token) }
                waiter?.resume()
            }
        }
    }
}

extension ReliableChannels {
    func unacknowledgedCount(of id: String) -> Int {
        state.withLockedValue { $0.table.channels[id]?.sender.unacknowledged.count ?? 0 }
    }

    /// Every channel's state, one line each (for logs and tests that time out; never parsed).
    public var diagnostics: [String] {
        state.withLockedValue { state in
            state.table.channels.map { id, channel in
                "channel \(id): attachment \(channel.attachment.map(String.init) ?? "none") "
                    + "(links \(state.links.keys.sorted())), sent \(channel.sender.lastSent), "
                    + "unacknowledged \(channel.sender.unacknowledged.count), delivered \(channel.receiver.delivered)"
            }
        }
    }
}
