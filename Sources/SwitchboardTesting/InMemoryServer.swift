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

    struct State: Sendable {
        var behavior = ConnectBehavior.accept
        var handlers: [String: RequestHandler] = [:]
        var links: [UInt64: @Sendable (DriverEvent) -> Void] = [:]
        var held: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var unanswered: [UInt64: (link: UInt64, continuation: CheckedContinuation<Response, any Error>)] = [:]
        var activity: [Activity] = []
        var watchers: [UInt64: AsyncStream<Activity>.Continuation] = [:]
        var messageWatchers: [UInt64: AsyncStream<Message>.Continuation] = [:]
        var opens = 0
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        mutating func record(_ event: Activity) {
            activity.append(event)
            for watcher in watchers.values { watcher.yield(event) }
            if case .message(let message) = event {
                for watcher in messageWatchers.values { watcher.yield(message) }
            }
        }
    }

    let state = NIOLockedValueBox(State())

    /// A server that accepts every connect and answers no request yet.
    public init() {}

    /// Answers requests for `event` with `handler` (replacing an earlier one).
    public func onRequest(_ event: String, _ handler: @escaping RequestHandler) {
        state.withLockedValue { $0.handlers[event] = handler }
    }

    /// What happens when a client opens; changing it from `hold` resolves the waiting opens.
    public var connectBehavior: ConnectBehavior {
        get { state.withLockedValue { $0.behavior } }
        set {
            let held = state.withLockedValue { state -> [CheckedContinuation<Void, any Error>] in
                state.behavior = newValue
                guard newValue != .hold else { return [] }
                defer { state.held = [:] }
                return Array(state.held.values)
            }
            for open in held { open.resume() }
        }
    }

    /// Sends `event` to every open client.
    public func push(_ event: String, _ payload: JSONValue) {
        let links = state.withLockedValue { Array($0.links.values) }
        for link in links { link(.event(event, payload)) }
    }

    /// Closes every open client's transport from the server side, as a network failure would:
    /// each hears `closed(reason)` and its unanswered requests fail.
    public func dropConnections(reason: String = "transport close") {
        let (links, requests) = state.withLockedValue { state in
            defer { state.links = [:]; state.unanswered = [:] }
            state.record(.dropped(reason))
            return (Array(state.links.values), Array(state.unanswered.values))
        }
        for request in requests { request.continuation.resume(throwing: ConnectionError.connectionLost(reason)) }
        for link in links { link(.closed(reason: reason)) }
    }

    /// How many clients are open now.
    public var openConnectionCount: Int { state.withLockedValue { $0.links.count } }

    /// How many opens succeeded so far.
    public var acceptedOpenCount: Int { state.withLockedValue { $0.opens } }

    /// Every message received so far, in order.
    public var received: [Message] {
        state.withLockedValue { state in
            state.activity.compactMap { if case .message(let message) = $0 { message } else { nil } }
        }
    }

    /// Everything that happened, from the start (what already happened comes first), then each
    /// new thing as it happens: tests await what they expect instead of sleeping.
    public func activity() -> AsyncStream<Activity> {
        let (stream, continuation) = AsyncStream<Activity>.makeStream()
        let id = state.withLockedValue { state in
            for event in state.activity { continuation.yield(event) }
            let id = state.makeID()
            state.watchers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Every message received, from the first one, then each new one as it arrives.
    public func messages() -> AsyncStream<Message> {
        let (stream, continuation) = AsyncStream<Message>.makeStream()
        let id = state.withLockedValue { state in
            for case .message(let message) in state.activity { continuation.yield(message) }
            let id = state.makeID()
            state.messageWatchers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.messageWatchers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: - For drivers

    func open(link: UInt64, onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLockedValue { state -> Bool in
                    guard state.behavior == .hold else { return true }
                    state.held[link] = continuation
                    state.record(.openHeld)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let held = self.state.withLockedValue { $0.held.removeValue(forKey: link) }
            held?.resume(throwing: CancellationError())
        }
        try state.withLockedValue { state in
            if case .refuse(let reason) = state.behavior {
                state.record(.refused(reason))
                throw ConnectionError.connectFailed(reason)
            }
            try Task.checkCancellation()
            state.links[link] = onEvent
            state.opens += 1
            state.record(.opened)
        }
    }

    func close(link: UInt64) {
        let requests = state.withLockedValue { state in
            if state.links.removeValue(forKey: link) != nil { state.record(.closed) }
            let mine = state.unanswered.filter { $0.value.link == link }
            for key in mine.keys { state.unanswered.removeValue(forKey: key) }
            return Array(mine.values)
        }
        for request in requests { request.continuation.resume(throwing: ConnectionError.connectionLost("closed")) }
    }

    func receive(_ message: Message, link: UInt64) throws(ConnectionError) -> RequestHandler? {
        let result = state.withLockedValue { state -> Result<RequestHandler?, ConnectionError> in
            guard state.links[link] != nil else { return .failure(.driverFailed("the in-memory transport is not open")) }
            state.record(.message(message))
            return .success(state.handlers[message.event])
        }
        return try result.get()
    }

    /// Waits for a reply that never comes, until the link closes or the caller is cancelled.
    func waitUnanswered(link: UInt64) async throws -> Response {
        let id = state.withLockedValue { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                let open = state.withLockedValue { state -> Bool in
                    guard state.links[link] != nil else { return false }
                    state.unanswered[id] = (link, continuation)
                    return true
                }
                if !open { continuation.resume(throwing: ConnectionError.connectionLost("closed")) }
            }
        } onCancel: {
            let waiting = self.state.withLockedValue { $0.unanswered.removeValue(forKey: id) }
            waiting?.continuation.resume(throwing: CancellationError())
        }
    }
}
