import SwitchboardCore
import Foundation
import Logging
import NIOConcurrencyHelpers
public import SocketIOProtocol

/// What a failover channel tells the app about its transports.
public enum FailoverEvent: Sendable, Hashable {
    /// The channel moved from one transport to the other (`from` is nil for the first).
    case transportChanged(from: FailoverTransport?, to: FailoverTransport, reason: String)
    /// Neither transport could be reached after every attempt: the connection reports a loss.
    case gaveUp(reason: String)
}

/// One logical channel over two transports to the same backend — plain WebSocket (the envelope,
/// preferred on a good network) and Socket.IO (the `envelope` event on a namespace, for a bad
/// one) — with sequence numbers, cumulative acknowledgements and a resume handshake, so the app
/// sees every message exactly once and in order across any number of switches, both ways
/// (SPEC.md part E). A ``FailoverPolicy`` decides the transport from measured signals.
///
/// A ``ConnectionDriver``: under a ``Connection`` it works in the pool, with leases and the
/// keeper, like the other drivers. A switch is invisible to the connection above: sends made
/// meanwhile are numbered and kept, and go out (with whatever the peer missed) once the new
/// transport has resumed the channel. Only when neither transport can be reached after
/// ``FailoverOptions/maxAttempts`` does it report the connection lost.
public final class FailoverDriver: ConnectionDriver {
    /// Where the two transports reach the backend, and how hard to try.
    public typealias Options = FailoverOptions

    /// How the driver connects.
    public let options: Options
    /// The channel's id (the server keys its state by it); a new one when the server no longer
    /// holds the channel (it expired, or the server restarted).
    public var channelID: String { snapshot.channelID }
    let logger: Logger
    let timeline: Timeline
    /// Every piece of the channel's mutable state; each event runs one transition under the
    /// lock and its actions after it.
    let state: NIOLockedValueBox<Machine>
    let requests = PendingReplies<Int, Response, ConnectionError>()
    /// The sends waiting for room in the window.
    let roomWaits: FailoverRoomWaits

    typealias Machine = FailoverChannelStateMachine<any FailoverLink, CheckedContinuation<Void, any Error>, @Sendable (DriverEvent) -> Void>

    /// A driver with `options`, switching transports as `policy` decides; nothing opens until ``open(onEvent:)``.
    public init(options: Options, policy: any FailoverPolicy = DefaultFailoverPolicy()) {
        self.options = options
        self.logger = options.logger
        self.timeline = Timeline(options.clock)
        self.roomWaits = FailoverRoomWaits(window: options.window, timeline: timeline)
        self.state = NIOLockedValueBox(Machine(
            channelID: UUID().uuidString, window: options.window, ackEvery: options.ackEvery,
            ackTimeout: options.ackTimeout, policy: policy
        ))
    }

    /// The transport carrying the channel now, if one does.
    public var transport: FailoverTransport? { snapshot.transport }

    /// The transport carrying the channel now, by name (`"WebSocket"`, `"Socket.IO"`).
    public var transportName: String? { transport.map { "\($0)" } }

    /// Every switch of transport (``FailoverEvent/transportChanged(from:to:reason:)``).
    public func transportChanges() -> AsyncStream<Void> {
        AsyncStream.relaying(events()) { event in
            if case .transportChanged = event { () } else { nil }
        }
    }

    /// Transport changes and give-ups from now on.
    public func events() -> AsyncStream<FailoverEvent> {
        observerStream(of: self, \.state, \.observers)
    }

    /// The channel's state as the read-only properties show it (one consistent read).
    private var snapshot: FailoverChannel.Snapshot { state.withLockedValue { FailoverChannel.Snapshot($0) } }

    // MARK: - ConnectionDriver

    /// Opens the channel on the policy's first transport (or the other, when it fails) and returns once the server resumed it.
    public func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
        let first = state.withLockedValue { $0.open(listener: onEvent) }
        do {
            try await connectWithRetries(first, attempts: 4, reportsLoss: false)
        } catch {
            shutDown()
            throw error
        }
        startTicker()
        watchNetwork()
    }

    /// A driver let go without ``close()`` closes its transport and ends its background tasks.
    deinit {
        shutDown()
    }

    /// Closes the channel's transport; waiting requests and sends waiting for room fail.
    /// Messages not yet acknowledged are kept: opened again, the channel resumes and sends them
    /// (a request among them may then still reach the server, though its caller heard it fail).
    public func close() async {
        shutDown()
    }

    /// What requests and sends waiting for room hear when the channel closes.
    static let closed = ConnectionError.connectionLost("the channel closed")

    /// The channel closes (or did not open): its link, a resume waiting, the background tasks,
    /// the requests waiting and the sends waiting for room all end.
    private func shutDown() {
        let action = state.withLockedValue { $0.close() }
        action.waiter?.resume(throwing: ConnectionError.connectFailed("closed"))
        for task in action.tasks { task.cancel() }
        action.link?.close()
        requests.failAll(with: Self.closed)
        roomWaits.failAll(with: Self.closed)
    }

    /// Numbers the event and sends it now if a transport carries the channel, or with the next
    /// resume: never lost while the channel lives, never twice.
    /// - Throws: ``ConnectionError/queueFull(limit:)`` when the window is full (or other sends
    ///   wait for room): nothing was kept.
    public func send(_ event: String, _ payload: JSONValue) async throws {
        try transmit(.event(name: event, data: payload))
    }

    /// Sends `event` like ``send(_:_:)``, but when the window is full waits up to `timeout` for
    /// the server's acknowledgements to make room, behind the sends that waited first.
    ///
    /// ```swift
    /// try await driver.send("position", payload, waitingUpTo: .seconds(30))
    /// ```
    ///
    /// - Throws: ``ConnectionError/queueFull(limit:)`` when no room was made within `timeout`,
    ///   ``ConnectionError/cancelled`` as soon as the task is cancelled while waiting, and
    ///   ``ConnectionError/connectionLost(_:)`` when the channel closes meanwhile (like waiting
    ///   requests); nothing was kept then.
    public func send(_ event: String, _ payload: JSONValue, waitingUpTo timeout: Duration) async throws {
        try await waitingForRoom(upTo: timeout) { slot in try transmit(.event(name: event, data: payload), holding: slot, waits: timeout) }
    }

    /// Sends a `request` envelope through the channel and waits at most `timeout` for its reply.
    public func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        try await request(event, payload, timeout: timeout, waitingUpTo: .zero)
    }

    /// Sends a request like ``request(_:_:timeout:)``, but when the window is full first waits up
    /// to `room` for acknowledgements to make room (as ``send(_:_:waitingUpTo:)`` does); its
    /// `timeout` counts from when it was sent. Cancelling the task ends the wait at once with
    /// ``ConnectionError/cancelled`` (sent already, the request still reaches the server).
    public func request(_ event: String, _ payload: JSONValue, timeout: Duration, waitingUpTo room: Duration) async throws -> Response {
        let deadline = PendingReplies<Int, Response, ConnectionError>.Deadline(after: timeout, on: timeline) { _ in
            .timedOut(event: event, after: timeout)
        }
        return try await waitingForRoom(upTo: room) { slot in
            // Cancelled before it asks: nothing sent (in a slot it was let into, it goes, so the slot is used).
            guard slot != nil || !Task.isCancelled else { throw ConnectionError.cancelled }
            return try await requests.call(deadline: deadline, cancelled: .cancelled) { register in
                try transmit(.request(name: event, data: payload), holding: slot, waits: room, registering: register)
            }
        }
    }

    /// Runs `send` (holding no slot); when it found the window full, waits up to `timeout` for
    /// room (``FailoverRoomWaits``) and runs it again in the slot it holds then.
    private func waitingForRoom<T>(upTo timeout: Duration, _ send: (_ slot: Int?) async throws -> T) async throws -> T {
        do {
            return try await send(nil)
        } catch let full as FailoverRoomWaits.Full {
            try await roomWaits.wait(
                full.token, upTo: timeout, closed: Self.closed,
                line: { state.withLockedValue { $0.waitForRoom(full.token) } },
                ended: { state.withLockedValue { $0.ledger.roomWaitEnded(full.token) } }
            )
            return try await send(full.token)
        }
    }

    /// Whether the last open resumed a channel the server still held (`false`: a new channel).
    public var recovered: Bool? { snapshot.recovered }

    /// Messages sent and not yet acknowledged by the server (at most ``FailoverOptions/window``): how far
    /// behind the server is, or how much a switch will send again.
    public var unacknowledgedCount: Int { snapshot.unacknowledged }

    /// Numbers `message` (in the slot `token` holds, if any; a decline is not numbered) and
    /// writes it on the current link, in order; `registering` learns a request's id under the
    /// lock, before any writer (or a resume) can send it, so no reply comes before its wait.
    /// - Throws: ``ConnectionError/queueFull(limit:)`` past the window (nothing was kept); when
    ///   the caller `waits` a while for room, ``FailoverRoomWaits/Full`` with the token to wait with.
    func transmit(
        _ message: FailoverChannel.Outgoing, holding token: Int? = nil, waits: Duration = .zero, registering: (Int) -> Void = { _ in }
    ) throws {
        let now = timeline.now()
        let outcome = state.withLockedValue { machine -> Result<Machine.SendAction, any Error> in
            do throws(ReliableChannelError) {
                let action = try machine.send(message, holding: token, now: now)
                if let id = action.requestID { registering(id) }
                return .success(action)
            } catch {
                guard token == nil, waits > .zero else { return .failure(ConnectionError.queueFull(limit: options.window)) }
                return .failure(FailoverRoomWaits.Full(token: machine.ledger.roomToken()))
            }
        }
        let action = try outcome.get()
        write(action.write)
    }

    /// Writes `batch` and what joined it meanwhile, as the link's one writer (so numbers go out
    /// in order without a write under the lock).
    func write(_ batch: Machine.Write?) {
        var next = batch
        while let batch = next {
            for envelope in batch.envelopes { batch.link.send(envelope) }
            next = state.withLockedValue { $0.written(generation: batch.generation) }
        }
    }
}

extension FailoverDriver {
    /// The channel's state, one line (for logs and the soak harness; never parsed).
    public var diagnostics: String { snapshot.diagnostics }
}
