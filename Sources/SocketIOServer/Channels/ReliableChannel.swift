import NIOConcurrencyHelpers
public import SocketIOProtocol

/// One client's reliable channel as the server application sees it, whatever transport carries
/// it now (plain WebSocket or Socket.IO): events and requests arrive once each, in order, across
/// transport switches; ``send(_:_:)`` reaches the client once, in order, whenever it is connected
/// within the channel's expiry.
///
/// Handlers run one at a time, in arrival order. A handler may use its channel (answer with
/// ``send(_:_:)``): when the server forgets the channel (it expired, or a full table made room
/// for a new one) the handlers are dropped, and with them what they hold.
public final class ReliableChannel: Sendable {
    typealias Handler = @Sendable (JSONValue) async throws -> [JSONValue]

    /// The id the client chose.
    public let id: String
    let hub: ReliableChannels
    /// `nil` once the server forgot the channel: handlers set later are not kept.
    private let handlers = NIOLockedValueBox<[String: Handler]?>([:])

    init(id: String, hub: ReliableChannels) {
        self.id = id
        self.hub = hub
    }

    /// Handles `event` (a request for it gets an empty reply once `handler` returns).
    public func on(_ event: String, _ handler: @escaping @Sendable (JSONValue) async -> Void) {
        handlers.withLockedValue { handlers in
            handlers?[event] = { payload in
                await handler(payload)
                return []
            }
        }
    }

    /// Answers requests for `event` with the values `handler` returns; a handler that throws
    /// answers with an `error` envelope naming the error.
    public func onRequest(_ event: String, _ handler: @escaping @Sendable (JSONValue) async throws -> [JSONValue]) {
        handlers.withLockedValue { $0?[event] = handler }
    }

    /// Sends `event` to the client, numbered; it is kept until the client acknowledges it and
    /// sent again after a switch. Throws `ReliableChannelError.windowFull` when the client is
    /// that far behind (nothing is dropped), `ReliableChannelError.channelGone` when the channel
    /// expired.
    public func send(_ event: String, _ data: JSONValue = nil) throws(ReliableChannelError) {
        try hub.send(.event(name: event, data: data), on: id)
    }

    /// Sends `event` like ``send(_:_:)``, but when the window is full waits up to `timeout` for
    /// the client's acknowledgements to make room (then throws `windowFull`; also at once when
    /// the task is cancelled, nothing sent). Use it in handlers that answer with events: the
    /// client's acknowledgements keep flowing while a handler waits.
    public func send(_ event: String, _ data: JSONValue = nil, waitingUpTo timeout: Duration) async throws(ReliableChannelError) {
        try await hub.send(.event(name: event, data: data), on: id, waitingUpTo: timeout)
    }

    /// Asks the client: sends `event` as a numbered request and returns the values of its reply
    /// (the client answers through `Connection.requests(named:)`). Like every channel message it
    /// survives the client's transport switches; it fails with ``ChannelRequestError/timedOut(event:after:)``
    /// when no reply came within `timeout`, ``ChannelRequestError/declined(_:)`` when nobody on the
    /// client listens, ``ChannelRequestError/notSent(_:)`` when the window is full or the channel gone.
    public func request(_ event: String, _ data: JSONValue = nil, timeout: Duration = .seconds(10)) async throws(ChannelRequestError) -> [JSONValue] {
        try await hub.request(event, data, on: id, timeout: timeout)
    }

    /// Messages sent to the client and not yet acknowledged (at most the window): how far
    /// behind the client is. 0 once the channel expired.
    public var unacknowledgedCount: Int { hub.unacknowledgedCount(of: id) }

    func handler(for event: String) -> Handler? {
        handlers.withLockedValue { $0?[event] }
    }

    /// The server forgot the channel: its handlers go (and what they captured, this channel too).
    func release() {
        var dropped: [String: Handler]? = nil
        handlers.withLockedValue { swap(&$0, &dropped) }  // freed on return, outside the lock
    }
}
