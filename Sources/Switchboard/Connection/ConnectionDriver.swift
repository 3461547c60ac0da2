public import SocketIOProtocol

/// The technology under a ``Connection``: opens a transport, carries events and requests, and
/// reports when the transport goes away. The connection above it owns the state machine, the
/// offline queue and the subscriptions; a driver only moves messages.
///
/// A driver may be opened again after it closed (reconnection). Its connection never runs two
/// opens or closes at once: each starts after the previous one returned. `open` may be cancelled
/// (the app gave up connecting): it then throws or returns, and a `close()` follows.
public protocol ConnectionDriver: Sendable {
    /// Opens the transport and returns once it can carry messages, or throws.
    ///
    /// - Parameter onEvent: called for every inbound event and once when the opened transport
    ///   closes by itself (not after ``close()``); never called under the driver's locks.
    func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws
    /// Closes the transport; in-flight requests fail. Also called when the transport is already
    /// closed (then it only frees what is left).
    func close() async
    /// Closes the transport the way a lost connection closes, so a server with session recovery
    /// keeps the session for the next ``open(onEvent:)``. The default is ``close()``.
    func suspend() async
    /// Writes one event now, or throws ``DriverError/notConnected`` when the transport is down
    /// (nothing written): a driver never queues, the connection above it does.
    func send(_ event: String, _ payload: JSONValue) async throws
    /// Sends one event and waits for its reply, at most `timeout`. Throws
    /// ``DriverError/notConnected`` when the transport is down and nothing was written: the
    /// connection keeps the request queued for the next connection (its deadline runs on).
    func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response
    /// After a successful ``open(onEvent:)``: whether the server resumed the previous session,
    /// replaying through `onEvent` the events sent while the transport was down, ahead of newer
    /// ones (before `open` returns where the driver can tell, as ``SocketIODriver`` does);
    /// `false` when it started a new one; `nil` when the transport has no session recovery.
    /// The default is `nil`.
    var recovered: Bool? { get }
    /// The transport carrying messages now, for a status display (`"websocket"`, `"polling"`,
    /// `"Socket.IO"` for a failover channel, …); `nil` while closed or when the driver does not say. The default is `nil`.
    var transportName: String? { get }
    /// One element for each change of ``transportName`` while open that no state change shows
    /// (a Socket.IO upgrade from polling, a failover switch); the sequence may end when the
    /// transport closes. The default ends at once.
    func transportChanges() -> AsyncStream<Void>
}

extension ConnectionDriver {
    /// Unknown by default: the driver does not say.
    public var recovered: Bool? { nil }

    /// Unknown by default: the driver does not say.
    public var transportName: String? { nil }

    /// None by default: the transport changes only with the connection's state.
    public func transportChanges() -> AsyncStream<Void> {
        AsyncStream { $0.finish() }
    }

    /// By default the same as ``close()``.
    public func suspend() async {
        await close()
    }
}

/// What a driver reports to its connection.
public enum DriverEvent: Sendable {
    /// The server sent `event` with `payload`.
    case event(String, JSONValue)
    /// The server sent `event` with `payload` and asks for an answer, which `reply` sends.
    case request(String, JSONValue, DriverReply)
    /// The transport closed without being asked to, and why.
    case closed(reason: String)
}

/// How a driver answers one request from the server.
public struct DriverReply: Sendable {
    let send: @Sendable ([JSONValue]) -> Bool
    let decline: @Sendable (String) -> Void

    /// - Parameters:
    ///   - send: sends the answer; returns `false` when the transport that carried the request
    ///     is gone (nothing was sent). Called at most once.
    ///   - decline: tells the server that nobody will answer (`message` says why), where the
    ///     protocol can say so; called instead of `send` when no one listens for the request.
    public init(send: @escaping @Sendable ([JSONValue]) -> Bool, decline: @escaping @Sendable (String) -> Void = { _ in }) {
        self.send = send
        self.decline = decline
    }
}

/// What a driver tells its connection, beside its own errors.
public enum DriverError: Error, Sendable, Hashable {
    /// The transport is down: nothing was written. The connection keeps the command (a send or
    /// a request) in its offline queue for the next connection.
    case notConnected
}
