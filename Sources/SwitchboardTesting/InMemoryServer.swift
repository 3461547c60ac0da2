import NIOConcurrencyHelpers
public import SocketIOProtocol
import Switchboard

/// A server that lives in memory, for tests of code that uses a ``Connection``: script replies to
/// requests, push events, drop every connection, refuse or hold connects, and read what was sent.
///
/// ```swift
/// let server = InMemoryServer()
/// server.onRequest("greet") { name in .string("hello, \(name.stringValue ?? "?")") }
/// let connection = try await ConnectionBuilder()
///     .url(URL(string: "memory://test")!)
///     .connect(using: .inMemory(server))
/// let reply = try await connection.request("greet", "ada")   // "hello, ada"
/// server.push("news", ["id": 1])                             // to every open connection
/// server.dropConnections()                                    // as if the network went away
/// ```
///
/// A request for an event without a handler is never answered (so timeouts can be tested);
/// it fails when its connection closes or drops.
public final class InMemoryServer: Sendable {
    /// One event a client sent.
    public struct Message: Sendable, Hashable, CustomStringConvertible {
        /// How it was sent.
        public enum Kind: String, Sendable, Hashable {
            /// ``Connection/send(_:_:)``.
            case send
            /// ``Connection/request(_:_:timeout:)``.
            case request
        }

        /// Whether it was a send or a request.
        public let kind: Kind
        /// The event name.
        public let event: String
        /// The payload.
        public let payload: JSONValue

        /// A message as the server records it.
        public init(kind: Kind, event: String, payload: JSONValue) {
            self.kind = kind
            self.event = event
            self.payload = payload
        }

        /// A one-line description, for logs.
        public var description: String { "\(kind) \(event) \(payload.jsonString)" }
    }

    /// Something that happened on the server, in order.
    public enum Activity: Sendable, Hashable, CustomStringConvertible {
        /// A client asked to open and waits (the behaviour is `hold`).
        case openHeld
        /// A client opened.
        case opened
        /// A client was refused.
        case refused(String)
        /// A client closed its transport.
        case closed
        /// The server dropped every client (``dropConnections(reason:)``).
        case dropped(String)
        /// A client sent a message.
        case message(Message)

        /// A one-line description, for logs.
        public var description: String {
            switch self {
            case .openHeld: "open held"
            case .opened: "opened"
            case .refused(let reason): "refused: \(reason)"
            case .closed: "closed"
            case .dropped(let reason): "dropped: \(reason)"
            case .message(let message): "\(message)"
            }
        }
    }

    /// What the server does with a client that opens.
    public enum ConnectBehavior: Sendable, Hashable {
        /// Opens succeed.
        case accept
        /// Opens fail with this reason.
        case refuse(String)
        /// Opens wait until the behaviour changes to `accept` or `refuse`.
        case hold
    }

    /// Answers one request: the payload in, the reply's value out.
    public typealias RequestHandler = @Sendable (JSONValue) async throws -> JSONValue

    /// The server's state, its handlers and waiters as the driver hands them over.
    typealias Machine = InMemoryServerState<
        @Sendable (DriverEvent) -> Void, CheckedContinuation<Void, any Error>, CheckedContinuation<Response, any Error>
    >

    private let state = NIOLockedValueBox(Machine())

    /// The one way into the state: `event` runs under the lock; what it hands back is done after.
    private func transition<T>(_ event: (inout Machine) -> T) -> T {
        state.withLockedValue(event)
    }

    /// A server that accepts every connect and answers no request yet.
    public init() {}

    /// Answers requests for `event` with `handler` (replacing an earlier one).
    public func onRequest(_ event: String, _ handler: @escaping RequestHandler) {
        transition { $0.answer(event, with: handler) }
    }

    /// What happens when a client opens; changing it from `hold` resolves the waiting opens.
    public var connectBehavior: ConnectBehavior {
        get { transition { $0.connectBehavior } }
        set {
            for open in transition({ $0.changeConnectBehavior(to: newValue) }) { open.resume() }
        }
    }

    /// Sends `event` to every open client.
    public func push(_ event: String, _ payload: JSONValue) {
        for link in transition({ $0.openLinks }) { link(.event(event, payload)) }
    }

    /// Closes every open client's transport from the server side, as a network failure would:
    /// each hears `closed(reason)` and its unanswered requests fail.
    public func dropConnections(reason: String = "transport close") {
        let (links, requests) = transition { $0.droppedAll(reason: reason) }
        for request in requests { request.resume(throwing: ConnectionError.connectionLost(reason)) }
        for link in links { link(.closed(reason: reason)) }
    }

    /// How many clients are open now.
    public var openConnectionCount: Int { transition { $0.openConnectionCount } }

    /// How many opens succeeded so far.
    public var acceptedOpenCount: Int { transition { $0.acceptedOpenCount } }

    /// Every message received so far, in order.
    public var received: [Message] { transition { $0.receivedMessages } }

    /// Everything that happened, from the start (what already happened comes first), then each
    /// new thing as it happens: tests await what they expect instead of sleeping.
    public func activity() -> AsyncStream<Activity> {
        follow { $0.watchActivity($1) }
    }

    /// Every message received, from the first one, then each new one as it arrives.
    public func messages() -> AsyncStream<Message> {
        follow { $0.watchMessages($1) }
    }

    /// A stream that `watch` registers (it replays what happened so far into it), and that leaves
    /// when its consumer stops.
    private func follow<Element: Sendable>(
        _ watch: (inout Machine, AsyncStream<Element>.Continuation) -> UInt64
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let id = transition { watch(&$0, continuation) }
        continuation.onTermination = { [weak self] _ in self?.transition { $0.watcherStopped(id) } }
        return stream
    }

    // MARK: - For drivers

    /// An identifier for a new driver's link.
    func newLink() -> UInt64 {
        transition { $0.makeID() }
    }

    func open(link: UInt64, onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                transition { $0.openRequested(link: link, waiter: continuation) }?.resume()
                // Cancelled before the wait was registered: the handler found nothing to take.
                if Task.isCancelled { transition { $0.openCancelled(link: link) }?.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            self.transition { $0.openCancelled(link: link) }?.resume(throwing: CancellationError())
        }
        switch transition({ $0.openGoesOn(link: link, events: onEvent, isCancelled: Task.isCancelled) }) {
        case .opened: return
        case .refused(let reason): throw ConnectionError.connectFailed(reason)
        case .cancelled: throw CancellationError()
        }
    }

    func close(link: UInt64) {
        for request in transition({ $0.closed(link: link) }) {
            request.resume(throwing: ConnectionError.connectionLost("closed"))
        }
    }

    func receive(_ message: Message, link: UInt64) throws(ConnectionError) -> RequestHandler? {
        switch transition({ $0.messageReceived(message, link: link) }) {
        case .notOpen: throw .driverFailed("the in-memory transport is not open")
        case .unhandled: return nil
        case .handled(let handler): return handler
        }
    }

    /// Waits for a reply that never comes, until the link closes or the caller is cancelled.
    func waitUnanswered(link: UInt64) async throws -> Response {
        let id = transition { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                transition { $0.requestUnanswered(id: id, link: link, waiter: continuation) }?
                    .resume(throwing: ConnectionError.connectionLost("closed"))
                if Task.isCancelled { transition { $0.requestCancelled(id: id) }?.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            self.transition { $0.requestCancelled(id: id) }?.resume(throwing: CancellationError())
        }
    }
}
